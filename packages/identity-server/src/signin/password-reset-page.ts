import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Ctx } from '../context.js';
import { ApiError } from '../http/errors.js';
import { escapeHtml } from '../http/html.js';
import { page } from '../oauth/hosted-page.js';
import { loadOrg } from '../organizations/settings.js';
import { challengeData, loadOpenChallenge, type ChallengeOut } from './challenges.js';
import { passwordFactor } from './factors/password.js';
import { RESET_PAGE_PATH } from './one-time-sign-in.js';

// The server's own password reset page: where a reset link leads when `POST /persons/{id}/credentials/password-reset`
// names no `redirect_target`. It answers the link's `password_reset` challenge with a form post (no script), exactly as
// an application's page would through the SDK.

const str = { type: 'string', maxLength: 1024 } as const;

export async function passwordResetPageRoutes(scope: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  await scope.register(formbody, { bodyLimit: 16 * 1024 });
  /** The link's open `password_reset` challenge and its organization, or undefined (unknown, expired or used link). */
  const pending = async (packId: string | undefined) => {
    const pack = packId ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', packId).executeTakeFirst() : undefined;
    if (!pack || pack.type !== 'challenge_pack' || Date.parse(pack.expires_at) <= Date.now()) return undefined;
    const reset = (challengeData(pack).challenges as ChallengeOut[]).find((c) => c.type === 'password_reset');
    const org = await loadOrg(ctx, pack.org_id);
    if (!reset || !org) return undefined;
    try {
      return { row: await loadOpenChallenge(ctx, reset.id), org };
    } catch (err) {
      if (err instanceof ApiError) return undefined;
      throw err;
    }
  };
  const form = (reply: FastifyReply, status: number, packId: string, orgName: string, error = '') =>
    page(reply, status, 'Choose a new password', `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<p>Choose a new password for ${escapeHtml(orgName)}.</p>
<form method="post" action="${RESET_PAGE_PATH}"><input type="hidden" name="challenge_pack_id" value="${escapeHtml(packId)}"><label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required autofocus><button type="submit">Set password</button></form>`);
  const expired = (reply: FastifyReply) => page(reply, 410, 'Link expired', '<p>This password reset link has expired or was already used. Ask for a new one.</p>');

  scope.get<{ Querystring: { challenge_pack_id?: string } }>(
    RESET_PAGE_PATH,
    { schema: { querystring: { type: 'object', properties: { challenge_pack_id: str } } } },
    async (req, reply) => {
      const found = await pending(req.query.challenge_pack_id);
      return found ? form(reply, 200, req.query.challenge_pack_id!, found.org.org_name) : expired(reply);
    },
  );
  scope.post<{ Body: { challenge_pack_id?: string; password?: string } }>(
    RESET_PAGE_PATH,
    { schema: { body: { type: 'object', additionalProperties: false, required: ['challenge_pack_id', 'password'], properties: { challenge_pack_id: str, password: str } } } },
    async (req, reply) => {
      const found = await pending(req.body.challenge_pack_id);
      if (!found) return expired(reply);
      try {
        // The password factor's own answer: the organization's password rules, then the new hash.
        await passwordFactor.attestations.password_reset!(ctx, found.row, { password: req.body.password });
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) return form(reply, 400, req.body.challenge_pack_id!, found.org.org_name, err.message);
        throw err;
      }
      return page(reply, 200, 'Password changed', `<p>Your ${escapeHtml(found.org.org_name)} password is changed. Sign in with it from the application.</p>`);
    },
  );
}
