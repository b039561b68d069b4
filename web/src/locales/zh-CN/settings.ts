export default {
  'pages.settings.save': '保存设置',
  'pages.settings.save.checkInput': '请检查输入',
  'pages.settings.save.unchanged': '你似乎并没有修改什么',
  'pages.settings.save.succeeded': '保存成功',
  'pages.settings.save.failed': '保存失败，请重试',
  'pages.settings.save.partlyFailed': '部分保存失败，请重试',
  'pages.settings.json.invalid': '不是合法的 JSON 字符串',
};
