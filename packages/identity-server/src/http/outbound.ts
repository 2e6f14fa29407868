import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';

/**
 * Outbound calls to addresses an organization chooses (webhook targets, SAML metadata URLs, OIDC discovery and the
 * provider's endpoints). In production they may not reach the server's own network: loopback, private, shared
 * (CGNAT), link-local (including the cloud metadata address 169.254.169.254), multicast and reserved ranges are
 * refused. The check runs on the address the connection actually uses (a `lookup` hook of the connecting socket), so a
 * public name that resolves to an internal address, or re-resolves to one later (DNS rebinding), is refused too.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Whether `address` (an IP literal) is one outbound calls may not reach. IPv4-mapped IPv6 is checked as IPv4. */
export function isInternalAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped and IPv4-compatible forms, dotted (::ffff:127.0.0.1) or hex (::ffff:7f00:1), are checked as IPv4.
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (dotted) return blocked.check(dotted, 'ipv4');
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return blocked.check(ip, 'ipv6');
}

/** What every refused call answers: it names the URL the organization gave, never anything the address answered. */
export class OutboundRefused extends Error {
  readonly code = 'EKEYWAY_OUTBOUND_REFUSED';
  constructor(host: string) {
    super(`${host} resolves to a loopback, private, link-local or metadata address, which Keyway does not call`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` that fails when any address of the name is internal (the socket then never connects). */
function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    if (!list.length || list.some((a) => isInternalAddress(a.address))) return callback(new OutboundRefused(hostname), []);
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}

const guardedAgent = new Agent({ connect: { lookup: guardedLookup as never } });

/** Throws {@link OutboundRefused} for a URL whose host is an internal IP literal (no lookup happens for those). */
export function assertPublicUrl(url: string | URL): void {
  const host = new URL(url).hostname;
  if (isIP(host.replace(/^\[|\]$/g, '')) && isInternalAddress(host)) throw new OutboundRefused(host);
}

/**
 * `fetch` for addresses an organization chose. With `guard` (production) internal addresses are refused, on the IP
 * literal and on every resolved address at connect time; without it (development, tests with local fakes) anything goes.
 * Redirects are never followed.
 */
export function outboundFetch(guard: boolean) {
  return async (input: string | URL, init: UndiciRequestInit = {}): Promise<Response> => {
    if (!guard) return fetch(input, { redirect: 'manual', ...(init as RequestInit) });
    assertPublicUrl(input);
    try {
      return (await undiciFetch(input, { redirect: 'manual', ...init, dispatcher: guardedAgent })) as unknown as Response;
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundRefused) throw cause;
      throw err;
    }
  };
}

/** Whether an error is a refused outbound call. */
export const isOutboundRefused = (err: unknown): err is OutboundRefused =>
  err instanceof OutboundRefused || (err as { cause?: unknown } | undefined)?.cause instanceof OutboundRefused;
