// The bench's floor: the least a Node.js gateway can do, a proxy that forwards each request to the
// mock and pipes the answer back (node:http in, an undici Pool out; no authentication, billing,
// logging or parsing). What it adds over the direct figures is what one Node.js hop costs on this
// machine (two more loopback round trips and the wake-ups of an idle CPU), so the table shows how
// much of a gateway's added latency is the hop and how much is the gateway's own work.
//
// node tools/bench/floor-proxy.mjs --upstream=http://127.0.0.1:PORT --port=PORT
import http from 'node:http';
import { Pool } from 'undici';

const argument = (name) => process.argv.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);
const upstream = argument('upstream');
const port = Number(argument('port') ?? 0);
if (!upstream) throw new Error('--upstream=<url> is required');

// Unbounded connections, as the gateways measured beside it: 1,000 streams are open at once.
const pool = new Pool(upstream, { connections: null, keepAliveTimeout: 60_000 });
const forwarded = ['content-type', 'authorization', 'accept'];

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      const headers = Object.fromEntries(forwarded.filter((name) => request.headers[name]).map((name) => [name, request.headers[name]]));
      const answer = await pool.request({ path: request.url, method: request.method, headers, body: Buffer.concat(chunks) });
      response.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
      for await (const chunk of answer.body) response.write(chunk);
      response.end();
    } catch (error) {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: error.message } }));
    }
  });
});
server.listen(port, '127.0.0.1', () => console.log(`floor proxy listening on http://127.0.0.1:${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    // Idle keep-alive connections would hold close() open.
    server.closeAllConnections();
  });
}
