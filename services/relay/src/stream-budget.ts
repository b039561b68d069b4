import type { QuotaHold } from '@aigw/platform';
import type { UsageRecord } from '@aigw/contracts';
import type { RelayContext } from './context.js';
import { charge, type PriceQuote } from './metering.js';
import type { PromptTokens } from './prompt-tokens.js';
import type { Usage } from './providers/types.js';
import type { CompletionCounter } from './tokenizer/completion-counter.js';

/** A stream's checkpoint is written every this many pieces with text (a dead relay's record then misses at most these). */
export const CHECKPOINT_EVERY_PIECES = 32;

/** Why a stream was stopped at the money the user and the key had left. */
export const OUTRAN_BALANCE = 'the balance or the API key quota ran out during the answer';

/**
 * What a streamed answer may cost while it passes (docs/architecture.md section 5.4): the hold
 * covers the prompt and `max_tokens`, or only PreConsumedQuota tokens when the client gave no
 * bound, so a long answer can outrun it. The budget meters the answer chunk by chunk: while it
 * costs less than the hold, a comparison of integers; past it, the hold is extended by as much
 * again from the user's and the key's counters (an atomic take), and when they have nothing left
 * the stream must stop, charged everything that was left: a balance never goes below zero.
 *
 * The meter charges the prompt at its bound (the hold's figure, no tokenizer pass): over its
 * count, never under, so the hold is extended a little earlier than strictly needed, which costs
 * nothing (settle gives back what was not used). Only before stopping a stream, when the user and
 * the key have nothing left, is the prompt counted exactly and the meter run again with it: a
 * stream is never stopped that the money still covers.
 *
 * It also writes checkpoints (the record of what was delivered so far, its charge at most the
 * hold), so a relay that dies mid-stream leaves a record that bills what reached the client. A
 * checkpoint without the upstream's usage takes the exact prompt count, as the final record
 * would: made once, at the first such checkpoint (32 pieces in, well after the first byte).
 */
export class StreamBudget {
  /** Completion tokens the hold pays for, with the prompt (recomputed when either changes). */
  private covered = 0;
  /** The prompt as metered: its bound, until the exact count is needed (`covers`). */
  private promptTokens: number;
  private exactPrompt = false;
  private pieces = 0;
  private writing = false;

  constructor(
    private readonly context: RelayContext,
    private readonly hold: QuotaHold,
    private readonly quote: PriceQuote,
    private readonly prompt: PromptTokens,
    /** The usage record of the request as it stands (a checkpoint). */
    private readonly recordOf: (usage: Usage, quota: number) => UsageRecord,
  ) {
    this.promptTokens = prompt.bound;
    this.covered = this.completionCovered();
  }

  /**
   * Whether the answer so far (the counter's text, or the upstream's running usage report when it
   * sends one) is paid for, extending the hold when it is not. False: nothing is left to pay with.
   */
  async covers(counter: CompletionCounter, reported: Usage | null): Promise<boolean> {
    // A per-call price is held whole: a long answer costs no more.
    if (this.quote.pricing.kind === 'price') return true;
    if (reported) {
      if (charge(this.quote, reported) <= this.hold.amount) return true;
    } else {
      // Tokens never exceed UTF-8 bytes, nor 3 per UTF-16 unit: the bound spares a count per chunk.
      if (counter.upperBound() <= this.covered || counter.total() <= this.covered) return true;
    }
    const needed = (reported ? charge(this.quote, reported) : this.chargeOf(counter.total())) - this.hold.amount;
    // As much again as held (at least what is missing): a long answer extends a few times, not per chunk.
    await this.context.quota.extend(this.hold, Math.max(needed, this.hold.amount, 1));
    this.covered = this.completionCovered();
    if (reported) return charge(this.quote, reported) <= this.hold.amount;
    const completion = counter.total();
    if (completion <= this.covered) return true;
    if (this.exactPrompt) return false;
    // Out of money by the prompt's bound: by its count the hold may still cover the answer so far.
    this.exactPrompt = true;
    this.promptTokens = this.prompt.exact();
    this.covered = this.completionCovered();
    return completion <= this.covered;
  }

  /** Counts a piece with text; every CHECKPOINT_EVERY_PIECES, the record of what was delivered is kept (one write at a time). */
  delivered(counter: CompletionCounter, reported: Usage | null): void {
    if (++this.pieces % CHECKPOINT_EVERY_PIECES !== 0 || this.writing) return;
    const usage = reported ?? { prompt_tokens: this.prompt.exact(), completion_tokens: counter.total(), cached_tokens: 0 };
    const record = this.recordOf(usage, Math.min(charge(this.quote, usage), this.hold.amount));
    // Locally first (a restarted relay publishes it), then beside the hold (a sweeper anywhere does).
    this.context.usage.checkpoint(record);
    this.writing = true;
    void this.context.quota
      .checkpoint(this.hold, record)
      .catch((error: unknown) => this.context.logger.warn({ err: error, requestId: this.hold.requestId }, 'stream checkpoint not written'))
      .finally(() => (this.writing = false));
  }

  private chargeOf(completionTokens: number): number {
    return charge(this.quote, { prompt_tokens: this.promptTokens, completion_tokens: completionTokens, cached_tokens: 0 });
  }

  /** The most completion tokens whose charge the hold covers (the charge grows with them: a binary search). */
  private completionCovered(): number {
    if (this.chargeOf(0) > this.hold.amount) return -1;
    let low = 0;
    let high = 1;
    while (this.chargeOf(high) <= this.hold.amount && high < Number.MAX_SAFE_INTEGER / 4) high *= 2;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (this.chargeOf(middle) <= this.hold.amount) low = middle;
      else high = middle;
    }
    return low;
  }
}
