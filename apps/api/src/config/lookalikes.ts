// A setting misspelt is a setting silently unset (API_TOKEN for API_TOKENS: a token is made up instead).
// Names of the environment that look like a setting of ours, without being one, are named at start.

/** A variable that is no setting, and the setting it looks like. */
export interface Lookalike {
  readonly variable: string;
  readonly setting: string;
}

// Variables of the OpenTelemetry specification for what this service does not do (metrics, logs, other
// exporters, the Node distribution's own): set on purpose, and near names of ours (OTEL_BLRP_* and OTEL_BSP_*).
const OTHER_OPENTELEMETRY =
  /^OTEL_(BLRP|METRICS?|LOGS?|LOGRECORD|EXPORTER_(OTLP_(METRICS|LOGS)|ZIPKIN|JAEGER|PROMETHEUS)|NODE|SEMCONV|CONFIG|EXPERIMENTAL|ENTITY)(_|$)/;

/** Edits (insert, delete, replace, swap two neighbours) that make `a` into `b`: optimal string alignment. */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

const firstWord = (name: string): string => name.split('_', 1)[0] as string;
const letters = (name: string): string => name.replaceAll('_', '');

/**
 * How much `name` (in capitals) looks like `setting`: the same letters but for `_` (DATABASEURL), one
 * or two edits away with the first word at most one (PORTS, API_TOKEN; HOME is not HOST), or a word
 * more or less (DATABASE_URL_FILE, SHUTDOWN_TIMEOUT). Undefined: not alike. Smaller is closer.
 */
function likeness(name: string, setting: string): number | undefined {
  if (letters(name) === letters(setting)) return 0;
  const distance = editDistance(name, setting);
  if (distance <= 2 && editDistance(firstWord(name), firstWord(setting)) <= 1) return distance;
  // A word more than a setting of two or more (JWT_ISSUER_URL; not HOST_IP), or its unit left off.
  const more = name.startsWith(`${setting}_`) ? name.slice(setting.length + 1) : undefined;
  if (more !== undefined && setting.includes('_') && !more.includes('_')) return 3;
  if (setting.replace(/_(MS|S)$/, '') === name) return 3;
  return undefined;
}

/**
 * The variables among `names` that are not settings but look like one, each with the setting it is
 * closest to. Names are compared in capitals (`port` is PORT misspelt); only names like ours are
 * named, never the machine's others (HOME, PATH, LANG).
 */
export function lookalikes(names: Iterable<string>, settings: readonly string[]): Lookalike[] {
  const known = new Set(settings);
  const found: Lookalike[] = [];
  for (const variable of names) {
    const name = variable.toUpperCase();
    if (known.has(variable) || OTHER_OPENTELEMETRY.test(name)) continue;
    let closest: { setting: string; likeness: number } | undefined;
    for (const setting of settings) {
      const alike = likeness(name, setting);
      if (alike !== undefined && (closest === undefined || alike < closest.likeness)) {
        closest = { setting, likeness: alike };
      }
    }
    if (closest !== undefined) found.push({ variable, setting: closest.setting });
  }
  return found;
}
