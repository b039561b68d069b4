import { localizeMessage, Role } from '@aigw/contracts';
import { decideUserAction, userActions, type UserAction } from '../src/domain/permissions';

const roles = [Role.Common, Role.Admin, Role.Root] as const;
const name = { [Role.Common]: 'user', [Role.Admin]: 'admin', [Role.Root]: 'root' } as Record<number, string>;

/**
 * The expected decision for every (actor, target, action), written out by hand from
 * docs/product.md section 3 so a change to the rules shows up as a diff of this table.
 * For 'create' the target is the role the new user would get.
 */
const expected: Record<string, Record<UserAction, boolean>> = {
  'user->user': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
  'user->admin': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
  'user->root': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
  'admin->user': {
    get: true,
    create: true,
    update: true,
    promote: false,
    demote: false,
    disable: true,
    enable: true,
    delete: true,
    reset_2fa: true,
    reset_passkey: true,
  },
  'admin->admin': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
  'admin->root': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
  'root->user': {
    get: true,
    create: true,
    update: true,
    promote: true,
    demote: false,
    disable: true,
    enable: true,
    delete: true,
    reset_2fa: true,
    reset_passkey: true,
  },
  'root->admin': {
    get: true,
    create: true,
    update: true,
    promote: false,
    demote: true,
    disable: true,
    enable: true,
    delete: true,
    reset_2fa: true,
    reset_passkey: true,
  },
  'root->root': {
    get: false,
    create: false,
    update: false,
    promote: false,
    demote: false,
    disable: false,
    enable: false,
    delete: false,
    reset_2fa: false,
    reset_passkey: false,
  },
};

const cases = roles.flatMap((actor) => roles.flatMap((target) => userActions.map((action) => [name[actor], name[target], action, actor, target] as const)));

describe('decideUserAction', () => {
  it('covers every (actor, target, action)', () => {
    expect(cases).toHaveLength(3 * 3 * userActions.length);
    for (const [actor, target, action] of cases) expect(expected[`${actor}->${target}`]).toHaveProperty(action);
  });

  it.each(cases)('%s -> %s: %s', (actorName, targetName, action, actor, target) => {
    const decision = decideUserAction(actor, target, action);
    expect(decision.allowed).toBe(expected[`${actorName}->${targetName}`]![action]);
    if (!decision.allowed) {
      // A catalogue message, worded in the caller's language where it is answered.
      expect(localizeMessage(decision.reason, 'en-US')).toMatch(/^[a-z][a-z ]+$/);
      expect(localizeMessage(decision.reason, 'zh-CN')).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('never lets anyone act on the super admin', () => {
    for (const actor of [Role.Common, Role.Admin, Role.Root]) {
      for (const action of ['demote', 'disable', 'delete'] as const) expect(decideUserAction(actor, Role.Root, action).allowed).toBe(false);
    }
  });
});
