import { chargeUnitOf } from '../src';

describe('chargeUnitOf', () => {
  it('prices image families per image', () => {
    for (const model of ['dall-e-2', 'dall-e-3', 'gpt-image-1', 'imagen-3.0-generate-002', 'flux-dev', 'flux.1-schnell', 'cogview-3', 'kolors']) {
      expect([model, chargeUnitOf(model)]).toEqual([model, 'image']);
    }
    // Vendor-prefixed and capitalised names (SiliconFlow's) are the same families.
    expect(chargeUnitOf('black-forest-labs/FLUX.1-schnell')).toBe('image');
    expect(chargeUnitOf('Kwai-Kolors/Kolors')).toBe('image');
    // A fixed-price gpt-image is per image; one priced by ratio only is billed by the tokens it reports.
    expect(chargeUnitOf('gpt-image-1', 1)).toBe('image');
    expect(chargeUnitOf('gpt-image-1', 0)).toBe('token');
    expect(chargeUnitOf('dall-e-3', 0)).toBe('image');
  });

  it('prices speech per character and transcription per audio minute', () => {
    expect(chargeUnitOf('tts-1')).toBe('character');
    expect(chargeUnitOf('tts-1-hd')).toBe('character');
    expect(chargeUnitOf('gpt-4o-mini-tts')).toBe('character');
    expect(chargeUnitOf('gemini-2.5-flash-preview-tts')).toBe('character');
    expect(chargeUnitOf('whisper-1')).toBe('audio_minute');
    expect(chargeUnitOf('gpt-4o-transcribe')).toBe('audio_minute');
    expect(chargeUnitOf('gpt-4o-mini-transcribe', 0)).toBe('audio_minute');
  });

  it('leaves every other model per token', () => {
    for (const model of [
      'gpt-4o',
      'claude-3-5-sonnet-20241022',
      'gemini-2.0-flash',
      'text-embedding-3-small',
      'gpt-4o-realtime-preview',
      'gpt-4o-audio-preview',
      'mj_imagine',
      '',
    ]) {
      expect([model, chargeUnitOf(model)]).toEqual([model, 'token']);
    }
  });
});
