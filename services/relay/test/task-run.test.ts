import { In, type DataSource } from 'typeorm';
import { JobName } from '@aigw/contracts';
import { createSilentLogger, openDatabase, readJobRuns } from '@aigw/platform';
import { backends, seededRandom, waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { reconcile } from '../../billing/src/reconcile';
import { LedgerEntryEntity, LedgerKind, LogEntity } from '../../billing/src/entities/index';
import { relayEntities, TaskEntity } from '../src/entities/index';
import { relayMigrations } from '../src/migrations/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(180_000);

/**
 * A seeded random run of async tasks against the mock's midjourney-proxy and Suno API: 200
 * submissions of every kind (Midjourney imagine, describe, shorten, blend and upscales of earlier
 * drawings of the run; Suno music and lyrics), each succeeding, failing upstream part-way, refused
 * at submit or stuck until TASK_TIMEOUT_MINUTES, some on limited API keys, ten at a time. Once every
 * task ended, from what the test itself planned: one usage row per submission charging the price
 * only when the upstream accepted, one refund per failed task and none for any other, the
 * balance and each limited key's quota exact, and every balance equal to its ledger.
 * TASK_RUN_SEED replays another run.
 */
const SEED = Number(process.env.TASK_RUN_SEED ?? 0x7a5c2024);
const SUBMISSIONS = 200;
const CONCURRENCY = 10;

/** QuotaPerUnit 500,000 x the default ModelPrice of each task model. */
const PRICE: Record<string, number> = {
  mj_imagine: 50_000,
  mj_blend: 50_000,
  mj_shorten: 50_000,
  mj_describe: 25_000,
  mj_upscale: 25_000,
  suno_music: 50_000,
  suno_lyrics: 5_000,
};

/** A small seeded PRNG (mulberry32), so a failing run can be replayed. */
function prng(seed: number) {
  const next = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  /** One of the weighted choices. */
  const pick = <T>(choices: ReadonlyArray<readonly [T, number]>): T => {
    let roll = next() * choices.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [choice, weight] of choices) {
      roll -= weight;
      if (roll < 0) return choice;
    }
    return choices[choices.length - 1]![0];
  };
  return { next, int, pick };
}

type Kind = 'imagine' | 'describe' | 'shorten' | 'blend' | 'upscale' | 'music' | 'lyrics';
type Outcome = 'success' | 'fail' | 'refused' | 'stuck';
type KeyName = 'unlimited' | 'limitedA' | 'limitedB';

interface Planned {
  index: number;
  kind: Kind;
  outcome: Outcome;
  key: KeyName;
  /** The mock's options for this task (`tasksteps=1;taskfail=3`, `mjcode=24`, ...). */
  mock: string;
  /** An upscale's original: the index of an earlier drawing of the run planned to succeed. */
  original?: number;
}

const MODEL: Record<Kind, string> = {
  imagine: 'mj_imagine',
  describe: 'mj_describe',
  shorten: 'mj_shorten',
  blend: 'mj_blend',
  upscale: 'mj_upscale',
  music: 'suno_music',
  lyrics: 'suno_lyrics',
};
const isSuno = (kind: Kind) => kind === 'music' || kind === 'lyrics';

/** The mock's options for a task of `kind` meant to end as `outcome`. */
function mockOptions(kind: Kind, outcome: Outcome, random: ReturnType<typeof prng>): string {
  switch (outcome) {
    case 'success': {
      // midjourney-proxy also takes a task answering 21 (exists) or 22 (queued): billed and followed alike.
      const code = isSuno(kind)
        ? 1
        : random.pick([
            [1, 8],
            [21, 1],
            [22, 1],
          ] as const);
      return `tasksteps=${random.int(1, 2)}${code === 1 ? '' : `;mjcode=${code}`}`;
    }
    case 'fail':
      return `tasksteps=2;taskfail=${random.int(2, 4)}`;
    case 'stuck':
      return 'tasksteps=1;taskstuck';
    case 'refused':
      return isSuno(kind)
        ? `sunorefuse=${random.pick([
            [429, 1],
            [500, 1],
          ] as const)}`
        : `mjcode=${random.pick([
            [24, 1],
            [23, 1],
          ] as const)}`;
  }
}

/** The whole run, decided up front from the seed. */
function plan(seed: number): Planned[] {
  const random = prng(seed);
  const planned: Planned[] = [];
  for (let index = 0; index < SUBMISSIONS; index++) {
    let kind = random.pick<Kind>([
      ['imagine', 25],
      ['describe', 10],
      ['shorten', 10],
      ['blend', 10],
      ['upscale', 15],
      ['music', 15],
      ['lyrics', 15],
    ]);
    let original: number | undefined;
    if (kind === 'upscale') {
      // A drawing submitted a while before, so it has mostly finished by the time its upscale comes.
      const drawings = planned.filter(
        (entry) => (entry.kind === 'imagine' || entry.kind === 'blend') && entry.outcome === 'success' && entry.index <= index - 10,
      );
      if (drawings.length === 0) kind = 'imagine';
      else original = drawings[random.int(0, drawings.length - 1)]!.index;
    }
    const outcome = random.pick<Outcome>([
      ['success', 55],
      ['fail', 20],
      ['refused', 17],
      ['stuck', 8],
    ]);
    const mock = mockOptions(kind, outcome, random);
    const key = random.pick<KeyName>([
      ['unlimited', 60],
      ['limitedA', 20],
      ['limitedB', 20],
    ]);
    planned.push({ index, kind, outcome, key, mock, ...(original === undefined ? {} : { original }) });
  }
  return planned;
}

/** What one submission got back. */
interface Submitted {
  planned: Planned;
  status: number;
  requestId: string;
  /** The upstream's task id when it accepted, '' otherwise. */
  taskId: string;
  answer: Record<string, unknown>;
}

/** Runs `work` on every item, at most `limit` at once, results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe.each(backends)(`a seeded run of ${SUBMISSIONS} task submissions, seed ${SEED} (%s)`, (backend) => {
  const planned = plan(SEED);
  let world: RelayWorld;
  let billing: DataSource;
  let relayDb: DataSource;
  const keys: Record<KeyName, { key: string; id: number }> = { unlimited: { key: '', id: 0 }, limitedA: { key: '', id: 0 }, limitedB: { key: '', id: 0 } };
  const results: Submitted[] = [];
  /** Each submission's answer as soon as it was sent, for the upscales that wait on their original. */
  const submissions: Array<Promise<Submitted>> = [];
  let startBalance = 0;
  const startRemain: Partial<Record<KeyName, number>> = {};

  const post = async (path: string, body: unknown, key: string) => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      requestId: response.headers.get('x-oneapi-request-id') ?? '',
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  };
  const tokenRemain = async (name: KeyName) =>
    (await world.gateway.call('GET', `/api/token/${keys[name].id}`, { session: world.user })).json().data.remain_quota as number;
  const tasks = () => relayDb.getRepository(TaskEntity);
  const accepted = () => results.filter((result) => result.taskId !== '');
  const platformOf = (kind: Kind) => (isSuno(kind) ? 'suno' : 'midjourney');
  /** The task rows of the accepted submissions, by request id. */
  const rowsByRequest = async () => {
    const rows = await tasks().findBy({ task_id: In(accepted().map((result) => result.taskId)) });
    const byTask = new Map(rows.map((row) => [`${row.platform}/${row.task_id}`, row]));
    return new Map(accepted().map((result) => [result.requestId, byTask.get(`${platformOf(result.planned.kind)}/${result.taskId}`)]));
  };
  const expectedStatus = (outcome: Outcome) => (outcome === 'success' ? 'SUCCESS' : 'FAILURE');

  /** One planned submission, as a client sends it; an upscale waits until its original drew. */
  const submit = async (entry: Planned): Promise<Submitted> => {
    const key = keys[entry.key].key;
    const prompt = (text: string) => `${text} ${entry.index} --mock ${entry.mock}`;
    let response: Awaited<ReturnType<typeof post>>;
    switch (entry.kind) {
      case 'imagine':
        response = await post('/mj/submit/imagine', { prompt: prompt('a fox') }, key);
        break;
      case 'shorten':
        response = await post('/mj/submit/shorten', { prompt: prompt('a very long prompt about a fox') }, key);
        break;
      case 'describe':
        response = await post('/mj/submit/describe', { base64: 'data:image/png;base64,AAAA', mock: entry.mock }, key);
        break;
      case 'blend':
        response = await post('/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'], mock: entry.mock }, key);
        break;
      case 'upscale': {
        // Its original may still be on its way (ten at a time): its answer first, then its drawing.
        const original = await submissions[entry.original!];
        if (!original?.taskId) throw new Error(`submission ${entry.index}: its original ${entry.original} was not accepted`);
        await waitFor(
          async () => (await tasks().findOneByOrFail({ platform: 'midjourney', task_id: original.taskId })).status === 'SUCCESS',
          30_000,
          `original ${original.taskId} of submission ${entry.index} drawn`,
        );
        response = await post('/mj/submit/change', { taskId: original.taskId, action: 'UPSCALE', index: 1 + (entry.index % 4), mock: entry.mock }, key);
        break;
      }
      case 'music':
        response = await post('/suno/submit/music', { prompt: prompt('la la'), mv: 'chirp-v3-5', title: `song ${entry.index}`, tags: 'pop' }, key);
        break;
      case 'lyrics':
        response = await post('/suno/submit/lyrics', { prompt: prompt('a song about foxes') }, key);
        break;
    }
    // Midjourney answers the task id as `result`, Suno as `data`.
    const id = isSuno(entry.kind) ? response.body.data : response.body.result;
    const taskId = response.status === 200 && typeof id === 'string' ? id : '';
    const result = { planned: entry, status: response.status, requestId: response.requestId, taskId, answer: response.body };
    results[entry.index] = result;
    return result;
  };

  beforeAll(async () => {
    world = await startRelayWorld(backend, { env: { TASK_POLL_INTERVAL_MS: '1000' } });
    billing = await openBillingDatabase(world.gateway.env);
    relayDb = await openDatabase({
      url: world.gateway.env.databaseUrl,
      dataDir: world.gateway.env.dataDir,
      schema: world.gateway.env.schema('relay'),
      entities: relayEntities,
      migrations: relayMigrations,
      logger: createSilentLogger(),
    });
    await world.addChannel({ name: 'mj', type: 2, key: 'mj-key', models: 'mj_imagine,mj_upscale,mj_describe,mj_shorten,mj_blend' });
    await world.addChannel({ name: 'suno', type: 36, key: 'suno-key', models: 'suno_music,suno_lyrics' });
    // The proxy's callbacks come to this server too, so notify-driven polls run beside the poller.
    await world.setOption('ServerAddress', world.baseUrl);
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.ServerAddress === world.baseUrl,
      10_000,
      'server address',
    );
    keys.unlimited = { key: world.apiKey, id: world.tokenId };
    for (const name of ['limitedA', 'limitedB'] as const) {
      const created = (
        await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name, unlimited_quota: false, remain_quota: 5_000_000 } })
      ).json();
      keys[name] = { key: created.data[0].key, id: created.data[0].id };
    }
    await world.waitForModel('mj_imagine');
    await world.waitForModel('suno_music');
    for (const name of ['limitedA', 'limitedB'] as const) startRemain[name] = await tokenRemain(name);
    startBalance = await world.balance();
  });

  afterAll(async () => {
    await relayDb?.destroy();
    await billing?.destroy();
    await world?.close();
  });

  it('submits every planned task, ten at a time: accepted unless refused', async () => {
    const started = Date.now();
    await inPool(planned, CONCURRENCY, (entry) => (submissions[entry.index] = submit(entry)));
    const byOutcome = (outcome: Outcome) => results.filter((result) => result.planned.outcome === outcome).length;
    process.stdout.write(
      `task run seed ${SEED} (${backend}): ${SUBMISSIONS} submitted in ${Date.now() - started} ms; ` +
        `${byOutcome('success')} to succeed, ${byOutcome('fail')} to fail, ${byOutcome('stuck')} stuck, ${byOutcome('refused')} refused; ` +
        `${results.filter((result) => result.planned.kind === 'upscale').length} upscales, ${results.filter((result) => result.planned.key !== 'unlimited').length} on limited keys\n`,
    );
    for (const result of results) {
      const { planned: entry } = result;
      const what = `submission ${entry.index} (${entry.kind} ${entry.outcome}, --mock ${entry.mock})`;
      expect({ what, requestId: result.requestId !== '' }).toEqual({ what, requestId: true });
      if (entry.outcome === 'refused') {
        expect({ what, status: result.status === 200 ? 200 : 'refused', taskId: result.taskId }).toEqual({ what, status: 'refused', taskId: '' });
        if (!isSuno(entry.kind)) expect({ what, code: result.answer.code }).toEqual({ what, code: Number(entry.mock.split('=')[1]) });
      } else {
        expect({ what, status: result.status, taskId: result.taskId !== '' }).toEqual({ what, status: 200, taskId: true });
      }
    }
    // One row per accepted submission, none for a refused one.
    const rows = await rowsByRequest();
    expect([...rows.values()].filter(Boolean)).toHaveLength(accepted().length);
    expect(await tasks().count()).toBe(accepted().length);
  });

  it('follows every accepted task to its end: stuck ones time out, every failure is refunded in the store', async () => {
    const started = Date.now();
    // The stuck ones stay IN_PROGRESS upstream; once there, they are made an hour and a minute old.
    const stuck = accepted().filter((result) => result.planned.outcome === 'stuck');
    await waitFor(
      async () => {
        const rows = await rowsByRequest();
        return stuck.every((result) => rows.get(result.requestId)?.status === 'IN_PROGRESS');
      },
      60_000,
      'stuck tasks in progress',
    );
    const rows = await rowsByRequest();
    const stuckIds = stuck.map((result) => rows.get(result.requestId)!.id);
    if (stuckIds.length > 0) await tasks().update({ id: In(stuckIds) }, { submit_time: Date.now() - 61 * 60_000 });

    const unfinished = async () => {
      const current = await rowsByRequest();
      return accepted().filter((result) => {
        const row = current.get(result.requestId);
        return !row || row.status !== expectedStatus(result.planned.outcome) || row.refunded !== (row.status === 'FAILURE');
      });
    };
    await waitFor(async () => (await unfinished()).length === 0, 90_000, 'every task ended (and refunded when failed)').catch(async (error: unknown) => {
      const left = await unfinished();
      const current = await rowsByRequest();
      throw new Error(
        `${(error as Error).message}; ${left.length} not as expected: ${left
          .slice(0, 10)
          .map((result) => `${result.planned.index} ${result.planned.kind} ${result.planned.outcome}: ${current.get(result.requestId)?.status}`)
          .join(', ')}`,
      );
    });
    process.stdout.write(`task run seed ${SEED} (${backend}): every task ended ${Date.now() - started} ms after the last submit\n`);

    const final = await rowsByRequest();
    for (const result of accepted()) {
      const row = final.get(result.requestId)!;
      const { planned: entry } = result;
      const what = `submission ${entry.index} (${entry.kind} ${entry.outcome})`;
      expect({ what, status: row.status, quota: row.quota, refunded: row.refunded, token: row.token_id }).toEqual({
        what,
        status: expectedStatus(entry.outcome),
        quota: PRICE[MODEL[entry.kind]],
        refunded: entry.outcome !== 'success',
        token: keys[entry.key].id,
      });
      if (entry.outcome === 'fail') expect({ what, reason: row.fail_reason }).toEqual({ what, reason: expect.stringContaining('taskfail') });
      if (entry.outcome === 'stuck') expect({ what, reason: row.fail_reason }).toEqual({ what, reason: 'the upstream task did not finish within 60 minutes' });
    }
    // Clients read the same from the store.
    const mj = accepted().filter((result) => !isSuno(result.planned.kind));
    const listed = await post('/mj/task/list-by-condition', { ids: mj.map((result) => result.taskId) }, world.apiKey);
    expect((listed.body as unknown as Array<{ status: string }>).map((task) => task.status)).toEqual(
      mj.map((result) => expectedStatus(result.planned.outcome)),
    );
  });

  it('records one usage row per submission, charging the price only when the upstream accepted', async () => {
    const requestIds = results.map((result) => result.requestId);
    const logs = billing.getRepository(LogEntity);
    await waitFor(async () => (await logs.countBy({ request_id: In(requestIds), type: 2 })) >= SUBMISSIONS, 30_000, 'every usage row');
    const rows = await logs.findBy({ request_id: In(requestIds), type: 2 });
    const byRequest = new Map<string, LogEntity[]>();
    for (const row of rows) byRequest.set(row.request_id!, [...(byRequest.get(row.request_id!) ?? []), row]);
    for (const result of results) {
      const { planned: entry } = result;
      const logged = byRequest.get(result.requestId) ?? [];
      expect({ submission: entry.index, rows: logged.length, model: logged[0]?.model_name, quota: logged[0]?.quota, token: logged[0]?.token_id }).toEqual({
        submission: entry.index,
        rows: 1,
        model: MODEL[entry.kind],
        quota: result.taskId ? PRICE[MODEL[entry.kind]] : 0,
        token: keys[entry.key].id,
      });
    }
  });

  it('gives each failed task its charge back exactly once, and no other task anything', async () => {
    const rows = await rowsByRequest();
    const failed = accepted().filter((result) => result.planned.outcome !== 'success');
    const expected = new Map(failed.map((result) => [`task-refund-${rows.get(result.requestId)!.id}`, PRICE[MODEL[result.planned.kind]]]));
    const ledger = billing.getRepository(LedgerEntryEntity);
    await waitFor(async () => (await ledger.countBy({ user_id: world.user.id, kind: LedgerKind.Refund })) >= expected.size, 30_000, 'every refund applied');
    // Poll runs that start two seconds on still find nothing to refund.
    const later = Math.floor(Date.now() / 1000) + 2;
    await waitFor(
      async () => ((await readJobRuns(world.gateway.env.infra.kv, [JobName.RelayTasksPoll])).get(JobName.RelayTasksPoll)?.last_run?.started_at ?? 0) >= later,
      15_000,
      'two more poll runs',
    );
    const refunds = await ledger.findBy({ user_id: world.user.id, kind: LedgerKind.Refund });
    const applied = new Map<string, number>();
    for (const refund of refunds) {
      expect(applied.has(refund.request_id!)).toBe(false);
      applied.set(refund.request_id!, refund.amount);
    }
    expect(Object.fromEntries(applied)).toEqual(Object.fromEntries(expected));
  });

  it('leaves the balance and every limited key exact, and every balance equal to its ledger', async () => {
    const priceOf = (result: Submitted) => PRICE[MODEL[result.planned.kind]]!;
    /** Σ charges of the accepted submissions − Σ refunds of the failed ones, of the key (all keys: the user). */
    const spent = (key?: KeyName) => {
      const mine = accepted().filter((result) => key === undefined || result.planned.key === key);
      const charges = mine.reduce((sum, result) => sum + priceOf(result), 0);
      const refunds = mine.filter((result) => result.planned.outcome !== 'success').reduce((sum, result) => sum + priceOf(result), 0);
      return charges - refunds;
    };
    const expectedBalance = startBalance - spent();
    await waitFor(async () => (await world.balance()) === expectedBalance, 15_000, 'balance settled').catch(() => undefined);
    expect(await world.balance()).toBe(expectedBalance);
    for (const name of ['limitedA', 'limitedB'] as const) {
      const expectedRemain = startRemain[name]! - spent(name);
      await waitFor(async () => (await tokenRemain(name)) === expectedRemain, 15_000, `${name} settled`).catch(() => undefined);
      expect({ name, remain: await tokenRemain(name) }).toEqual({ name, remain: expectedRemain });
    }
    expect(await reconcile(billing)).toEqual([]);
  });
});
