export default {
  'errors.http.429': '请求次数过多，请稍后再试！',
  'errors.http.500': '服务器内部错误，请联系管理员！',
  'errors.http.405': '本站仅作演示之用，无服务端！',
  'errors.badAnswer': '服务器的响应无法识别，请稍后再试',
  'errors.network': '无法连接到服务器',
  'errors.status.failed': '加载状态失败',
  'errors.clipboard.title': '无法复制到剪贴板，请手动复制',
  'errors.forbidden.title': '无权访问',
  'errors.forbidden.description': '您没有权限访问此页面',
  'errors.notFound.title': '页面不存在，请检查你的浏览器地址是否正确',
  'errors.notFound.description': '你访问的页面不存在',
  'errors.backHome': '返回首页',
};
