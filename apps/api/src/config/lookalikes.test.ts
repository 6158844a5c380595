import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../config.ts';
import { editDistance, lookalikes } from './lookalikes.ts';

const SETTING_NAMES = Object.values(SETTINGS).map(({ variable }) => variable);

describe('variables that look like a setting without being one', () => {
  it.each([
    ['API_TOKEN', 'API_TOKENS'],
    ['DATABASEURL', 'DATABASE_URL'],
    ['PORTS', 'PORT'],
    ['OTEL_EXPORTER_OTLP_ENDPOINTS', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    ['OTEL_EXPORTER_OTLP_TRACE_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    ['port', 'PORT'],
    ['LOGLEVEL', 'LOG_LEVEL'],
    ['JWT_AUDIANCE', 'JWT_AUDIENCE'],
    ['API_TOKNES', 'API_TOKENS'],
    ['WEBHOOK_URL', 'WEBHOOK_URLS'],
    ['SHUTDOWN_TIMEOUT', 'SHUTDOWN_TIMEOUT_MS'],
    ['DATABASE_URL_FILE', 'DATABASE_URL'],
  ])('when %s is set, then it is named with the setting it resembles, %s', (variable, setting) => {
    expect(lookalikes([variable], SETTING_NAMES)).toEqual([{ variable, setting }]);
  });

  it("when the machine's own variables are set (HOME, PATH, HOSTNAME, pnpm's NODE, another signal's OTEL_*), then none is named", () => {
    const machine = [
      'HOME',
      'PATH',
      'PWD',
      'LANG',
      'HOSTNAME',
      'HOST_IP',
      'LOGNAME',
      'NODE',
      'NODE_OPTIONS',
      'CI',
      'TERM',
      'MALLOC_ARENA_MAX',
      'TEST_DATABASE_URL',
      'npm_config_loglevel',
      'OTEL_BLRP_MAX_QUEUE_SIZE',
      'OTEL_METRICS_EXPORTER',
      'OTEL_LOGS_EXPORTER',
      'DATABASE_PORT',
    ];
    expect(lookalikes([...machine, ...SETTING_NAMES], SETTING_NAMES)).toEqual([]);
  });

  it('when two neighbours are swapped, then that is one edit', () => {
    expect(editDistance('API_TOKNES', 'API_TOKENS')).toBe(1);
    expect(editDistance('HOME', 'HOST')).toBe(2);
  });
});
