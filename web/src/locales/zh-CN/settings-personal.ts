export default {
  'pages.settings.tab.personal': '个人设置',
  'pages.settings.tab.operation': '运营设置',
  'pages.settings.tab.system': '系统设置',
  'pages.settings.tab.other': '其他设置',
};
