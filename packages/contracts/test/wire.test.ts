import { channelSearchQuerySchema, msg, logOtherSchema, pricingAnswerSchema, tagEditBodySchema, topUpPayAnswerSchema } from '../src';

// Shapes the console and the services both read from here: what each side relies on.
describe('wire shapes', () => {
  it('reads the tag editor: blank fields are no change, numbers may come as text', () => {
    expect(tagEditBodySchema.parse({ tag: ' team ', new_tag: null, model_mapping: '', groups: '', models: null, priority: '3', weight: '' })).toEqual({
      tag: 'team',
      priority: 3,
    });
    expect(tagEditBodySchema.parse({ tag: 'team', new_tag: '' })).toEqual({ tag: 'team', new_tag: '' });
    expect(tagEditBodySchema.safeParse({ tag: 'team', model_mapping: '[1]' }).error?.issues[0]?.message).toBe(msg('channels.model_mapping_json'));
    expect(tagEditBodySchema.safeParse({ tag: ' ' }).error?.issues[0]?.message).toBe(msg('channels.tag_required'));
  });

  it('reads the channel table query flags as the console sends them', () => {
    expect(channelSearchQuerySchema.parse({ p: '0', page_size: '10', id_sort: 'true', tag_mode: '0', keyword: ' 7 ' })).toEqual({
      p: 1,
      page_size: 10,
      id_sort: true,
      tag_mode: false,
      keyword: '7',
      group: '',
      model: '',
    });
  });

  it('keeps the fields of a log row it does not know, and refuses mistyped known ones', () => {
    expect(logOtherSchema.parse({ frt: 120, admin_info: { use_channel: [3, 4] }, later_field: 'x' })).toEqual({
      frt: 120,
      admin_info: { use_channel: [3, 4] },
      later_field: 'x',
    });
    expect(logOtherSchema.safeParse({ frt: 'fast' }).success).toBe(false);
  });

  it('reads the fields the pricing and payment answers carry beside data', () => {
    const pricing = { success: true, message: '', data: [], group_ratio: { default: 1 }, usable_group: { default: 'default group' } };
    expect(pricingAnswerSchema.parse(pricing)).toEqual(pricing);
    const pay = { success: true, message: 'success', data: { pid: '1', sign: 'x' }, url: 'https://pay.example.com/submit.php' };
    expect(topUpPayAnswerSchema.parse(pay)).toEqual(pay);
  });
});
