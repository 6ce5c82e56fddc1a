// Which peers the hosted server trusts as proxies (LOOM_TRUST_PROXY), for the decisions made
// before there is a request to read X-Forwarded-For from: the connection cap and the rate limit
// of answers written straight to the socket.
import net from 'node:net';
import type { TrustProxy } from '../config/load.ts';

/** Whether a connection from this address comes through a proxy the configuration trusts. */
export function trustedProxy(trustProxy: TrustProxy): (address: string) => boolean {
  // `true` and a hop count trust the nearest hop, whatever its address.
  if (trustProxy === true || (typeof trustProxy === 'number' && trustProxy > 0)) return () => true;
  if (!Array.isArray(trustProxy) || trustProxy.length === 0) return () => false;
  const list = new net.BlockList();
  for (const entry of trustProxy) {
    const [address = '', prefix] = entry.split('/');
    const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  // An IPv4 address seen as IPv6 (::ffff:10.0.0.1, on a dual-stack listener) matches its IPv4 entry.
  return (address) => net.isIP(address) !== 0 && list.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
}
