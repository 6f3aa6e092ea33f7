const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Whether a URL hostname is the loopback interface (`localhost`, `127.x.y.z`, `[::1]`). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || LOOPBACK_V4.test(h) || h === '[::1]';
}
