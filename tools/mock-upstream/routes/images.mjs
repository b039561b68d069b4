// OpenAI's image APIs, deterministic: POST /v1/images/generations (JSON), /v1/images/edits and
// /v1/images/variations (multipart), also under Azure's /openai/deployments/{name}/images/...
// (see README.md, "Images"). The server has read the body (a form as fields and Files), applied
// the options and the status/redirect/latency/hang modes, and recorded the request.

/** The smallest valid PNG: one transparent pixel. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Input tokens an input image file costs (edits and variations): a flat figure, so tests can compute it. */
const INPUT_IMAGE_TOKENS = 100;

/** gpt-image-1's output tokens per image by quality and size (OpenAI's table); `auto` or none is high, 1024x1024. */
const OUTPUT_TOKENS = {
  low: { '1024x1024': 272, '1024x1536': 408, '1536x1024': 400 },
  medium: { '1024x1024': 1056, '1024x1536': 1584, '1536x1024': 1568 },
  high: { '1024x1024': 4160, '1024x1536': 6240, '1536x1024': 6208 },
};

const PATH = /^(?:\/v1|\/openai\/deployments\/([^/]+))\/images\/(generations|edits|variations)$/;

const isFile = (value) => value instanceof Blob;

/** The files of a form field (`image` or `image[]`). */
function filesOf(body, name) {
  const value = body[name] ?? body[`${name}[]`];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(isFile);
}

/** A JSON number, or a form's text; 1 when absent. */
function countOf(value) {
  if (value === undefined || value === null || value === '') return 1;
  return Number(value);
}

/** Output tokens of one gpt-image image of this quality and size. */
export function imageOutputTokens(quality, size) {
  const byQuality = Object.hasOwn(OUTPUT_TOKENS, quality ?? '') ? OUTPUT_TOKENS[quality] : OUTPUT_TOKENS.high;
  return Object.hasOwn(byQuality, size ?? '') ? byQuality[size] : byQuality['1024x1024'];
}

export const imageRoutes = {
  match(method, path) {
    if (method !== 'POST') return undefined;
    return PATH.exec(path)?.[2];
  },

  respond(req, res, { kind, path, baseModel, body, options, send }) {
    const deployment = PATH.exec(path)?.[1];
    const model = typeof baseModel === 'string' && baseModel !== '' ? baseModel : deployment ? decodeURIComponent(deployment) : 'dall-e-2';
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    if (kind !== 'variations' && prompt === '') return send.error(400, 'mock upstream: prompt is required');
    const images = kind === 'generations' ? [] : filesOf(body, 'image');
    if (kind !== 'generations' && images.length === 0) return send.error(400, 'mock upstream: an image file (field image or image[]) is required');
    const n = countOf(body.n);
    if (!Number.isInteger(n) || n < 1 || n > 10) return send.error(400, 'mock upstream: n must be an integer from 1 to 10');
    const format = body.response_format ?? 'url';
    if (format !== 'url' && format !== 'b64_json') return send.error(400, `mock upstream: response_format ${format} is not supported`);

    // gpt-image models always answer base64 and report their tokens.
    const gptImage = model.startsWith('gpt-image-');
    const data = Array.from({ length: n }, (_, index) =>
      gptImage || format === 'b64_json' ? { b64_json: PNG_BASE64 } : { url: `https://mock.invalid/images/${index + 1}.png` },
    );
    const answer = { created: Math.floor(Date.now() / 1000), data };
    if (gptImage && !options.nousage) {
      const sign = options.negusage ? -1 : 1;
      const text = Math.ceil(prompt.length / 4);
      const image = INPUT_IMAGE_TOKENS * (images.length + filesOf(body, 'mask').length);
      const output = n * imageOutputTokens(body.quality, body.size);
      answer.usage = {
        input_tokens: sign * (text + image),
        output_tokens: sign * output,
        total_tokens: sign * (text + image + output),
        input_tokens_details: { text_tokens: sign * text, image_tokens: sign * image },
      };
    }
    return send.json(200, options.badsse ? '{"created": this is not json' : JSON.stringify(answer));
  },
};
