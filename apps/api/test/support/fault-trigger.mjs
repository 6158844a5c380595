// Loaded into the service with `node --import` by test/stopping.test.ts: on SIGUSR2 it makes the fault
// named by PLANT_STORE_TEST_FAULT happen in the service's process, outside any request, as a bug would.
process.on('SIGUSR2', () => {
  if (process.env.PLANT_STORE_TEST_FAULT === 'rejection') {
    void Promise.reject(new Error('a promise nobody awaited'));
  } else {
    setImmediate(() => {
      throw new Error('a throw nobody caught');
    });
  }
});
