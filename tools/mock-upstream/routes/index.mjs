// The mock's routes beyond chat, completions, embeddings, rerank and the Anthropic and Gemini chat
// APIs, one module per API family. Each exports `{ flavor?, match(method, path) -> kind | undefined,
// respond(req, res, { kind, model, baseModel, body, options, query, send }) }`: the server has
// already read the body (JSON, or multipart as fields and Files), checked the key, applied the
// options and the status/redirect/latency/hang modes; `send` has json, error, stream and bytes.
// A module may add `errorBody(status, message)` (its provider's error JSON) for the server's errors,
// and `modelOf(path)` when its protocol names the model in the path (its `@options` then apply).
// `raw` in the context is the body as received (for signature checks), `billing` the server's live billing figures.
// Import your module above the array (one line each) and append it to the array.
import { responsesRoutes } from './responses.mjs';
import { imageRoutes } from './images.mjs';
import { audioRoutes } from './audio.mjs';
import { realtimeRoutes } from './realtime.mjs';
import { midjourneyRoutes } from './midjourney.mjs';
import { sunoRoutes } from './suno.mjs';
import { cohereRoutes } from './cohere.mjs';
import { cloudflareRoutes } from './cloudflare.mjs';
import { bedrockRoutes } from './bedrock.mjs';
import { vertexRoutes } from './vertex.mjs';
import { balanceRoutes } from './balances.mjs';
import { zhipuRoutes } from './zhipu.mjs';
import { baiduRoutes } from './baidu.mjs';
import { tencentRoutes } from './tencent.mjs';
import { aliCompatibleRoutes, aliNativeRoutes } from './ali.mjs';
import { difyRoutes } from './dify.mjs';
import { sparkRoutes } from './xunfei.mjs';
import { cozeRoutes } from './coze.mjs';
import { codexRoutes } from './codex.mjs';

export const routeModules = [
  responsesRoutes,
  imageRoutes,
  audioRoutes,
  realtimeRoutes,
  midjourneyRoutes,
  sunoRoutes,
  cohereRoutes,
  cloudflareRoutes,
  bedrockRoutes,
  vertexRoutes,
  balanceRoutes,
  zhipuRoutes,
  baiduRoutes,
  tencentRoutes,
  aliCompatibleRoutes,
  aliNativeRoutes,
  difyRoutes,
  sparkRoutes,
  cozeRoutes,
  codexRoutes,
];
