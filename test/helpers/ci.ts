/**
 * In CI (`CI` set to anything but `false` or `0`), a test that needs a program the machine
 * lacks (redis-server, Chromium) fails instead of skipping: CI installs them, so a missing
 * one is a broken setup, never a pass.
 */
export const inCI = Boolean(process.env.CI) && !/^(false|0)$/i.test(process.env.CI ?? '')

/** Whether to run a test that needs `what`; throws in CI when it is missing. */
export function requireInCI(available: boolean, what: string): boolean {
  if (!available && inCI)
    throw new Error(`CI must run this test: ${what} is not installed (.ci/run installs it)`)
  if (!available) console.warn(`\n*** SKIPPING: ${what} is not installed ***\n`)
  return available
}
