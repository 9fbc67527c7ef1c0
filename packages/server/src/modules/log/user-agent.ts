/**
 * Browser and operating system from a User-Agent header, for the sign-in log: the families
 * people use to sign in (desktop and mobile browsers, the in-app browsers of WeChat, WeCom and
 * DingTalk, command-line clients). Order matters: Edge and Opera also say "Chrome", Chrome also
 * says "Safari".
 */
const browsers: [RegExp, string][] = [
  [/wxwork\/([\d.]+)/i, 'WeCom'],
  [/MicroMessenger\/([\d.]+)/i, 'WeChat'],
  [/DingTalk\/([\d.]+)/i, 'DingTalk'],
  [/EdgA?\/([\d.]+)/, 'Edge'],
  [/OPR\/([\d.]+)/, 'Opera'],
  [/SamsungBrowser\/([\d.]+)/, 'Samsung Internet'],
  [/UCBrowser\/([\d.]+)/, 'UC Browser'],
  [/QQBrowser\/([\d.]+)/, 'QQ Browser'],
  [/Firefox\/([\d.]+)/, 'Firefox'],
  [/FxiOS\/([\d.]+)/, 'Firefox'],
  [/CriOS\/([\d.]+)/, 'Chrome'],
  [/HeadlessChrome\/([\d.]+)/, 'Headless Chrome'],
  [/Chrom(?:e|ium)\/([\d.]+)/, 'Chrome'],
  [/Version\/([\d.]+).*Safari\//, 'Safari'],
  [/MSIE ([\d.]+)/, 'Internet Explorer'],
  [/Trident\/.*rv:([\d.]+)/, 'Internet Explorer'],
  [/^curl\/([\d.]+)/, 'curl'],
  [/^Wget\/([\d.]+)/, 'Wget'],
  [/^python-requests\/([\d.]+)/, 'Python requests'],
  [/^okhttp\/([\d.]+)/, 'OkHttp'],
  [/^Go-http-client\/([\d.]+)/, 'Go'],
  [/^node-fetch|^undici|^node\b/i, 'Node.js'],
];

const windowsVersions: Record<string, string> = {
  '10.0': '10/11',
  '6.3': '8.1',
  '6.2': '8',
  '6.1': '7',
  '6.0': 'Vista',
  '5.1': 'XP',
};

function osOf(ua: string): string | null {
  let m = ua.match(/HarmonyOS(?:[ /]([\d.]+))?/);
  if (m) return m[1] ? `HarmonyOS ${m[1]}` : 'HarmonyOS';
  m = ua.match(/Windows NT ([\d.]+)/);
  if (m) return `Windows ${windowsVersions[m[1] ?? ''] ?? m[1]}`;
  m = ua.match(/(?:iPhone|iPad|iPod).*? OS ([\d_]+)/);
  if (m) return `iOS ${(m[1] ?? '').replace(/_/g, '.')}`;
  m = ua.match(/Android ([\d.]+)/);
  if (m) return `Android ${m[1]}`;
  m = ua.match(/Mac OS X ([\d_.]+)/);
  if (m) return `macOS ${(m[1] ?? '').replace(/_/g, '.')}`;
  if (/CrOS/.test(ua)) return 'ChromeOS';
  if (/Linux/.test(ua)) return 'Linux';
  return null;
}

const major = (version: string | undefined) => version?.split('.')[0];

export function parseUserAgent(ua: string | null | undefined): { browser: string | null; os: string | null } {
  if (!ua) return { browser: null, os: null };
  let browser: string | null = null;
  for (const [pattern, name] of browsers) {
    const m = ua.match(pattern);
    if (m) {
      const version = major(m[1]);
      browser = version ? `${name} ${version}` : name;
      break;
    }
  }
  return { browser, os: osOf(ua) };
}
