export default {
  'pages.home.intro': '统一的 AI 模型接口：用 OpenAI 的格式访问众多模型服务，按量计费。',
  'pages.home.baseUrl': 'API 地址：',
  'pages.home.docs': '使用文档',
  'pages.home.start': '开始使用',
  'pages.home.notice': '系统公告',
  'pages.home.notice.today': '今日关闭',
  'pages.about.title': '关于',
  'pages.about.empty': '管理员未设置关于内容，可在 设置 → 其他设置 中填写（支持 Markdown、HTML 或一个网址）。',
};
