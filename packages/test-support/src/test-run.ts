/**
 * The test run that what the tests make on a Docker engine belongs to: its containers carry it in a
 * label and the drills' names begin with it, so that CI (.ci/run), which sets PLANT_STORE_TEST_RUN,
 * counts what this run left behind and never what another job made on a shared engine.
 */
export const TEST_RUN = testRun(process.env.PLANT_STORE_TEST_RUN);

function testRun(value: string | undefined): string {
  if (value === undefined || value === '') return 'local';
  // It goes into container, volume and compose project names.
  if (!/^[a-z0-9][a-z0-9-]{0,19}$/.test(value))
    throw new Error(`PLANT_STORE_TEST_RUN must be 1 to 20 lowercase letters, digits and dashes: ${value}`);
  return value;
}
