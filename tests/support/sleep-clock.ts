/** A clock that moves only when the code under test sleeps, so its waiting is measured exactly. */
export function createSleepClock() {
  let time = 1_000_000;
  const sleeps: number[] = [];
  return {
    /** Every sleep asked for, in ms, in order. */
    sleeps,
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
  };
}
