export default {
  'pages.chat.notConfigured': '请联系管理员配置聊天链接',
  'pages.chat.badConfig': '聊天链接配置错误，请联系管理员',
  'pages.chat.appLink': '该聊天客户端是一个应用，点击下方按钮打开',
  'pages.chat.open': '打开 {name}',
};
