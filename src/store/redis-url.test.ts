import { describe, expect, it } from 'vitest'
import { echoingRedis } from '../../test/helpers/echoing-servers.js'
import { InvalidOptionError } from '../errors.js'
import { redisStore } from './redis-store.js'

/** Everything an error holds that could reach a log: message, stack, own properties, cause. */
function everything(e: unknown): string {
  const err = e as Error & { cause?: unknown }
  return [
    err.message,
    err.stack,
    JSON.stringify(err),
    JSON.stringify(Object.entries(err)),
    String(err.cause ?? ''),
  ].join('\n')
}

describe('redisStore: a bad URL is a typed error without the password', () => {
  it.each([
    'redis://user:s3cretpw@host:notaport',
    'redis://user:s3cretpw@[bad',
    'redis://user:s3cr%etpw@127.0.0.1:1',
    'http://user:s3cretpw@127.0.0.1:1',
    'redis://user:s3cretpw@127.0.0.1:1/zero',
    'redis://s3cretpw@',
    // A password in the query (ioredis and pg read `?password=`), on a URL refused for another reason.
    'redis://host:notaport/0?password=s3cretpw',
    'mysql://host/db?password=s3cretpw',
  ])('%s', async (url) => {
    const error = await redisStore({ url }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect(error).toMatchObject({ option: 'url' })
    expect(everything(error)).not.toMatch(/s3cr/)
  })

  it('a connection that fails says so without the password', async () => {
    const store = await redisStore({
      url: 'redis://user:s3cret@pw@127.0.0.1:1',
      timeoutMs: 2000,
      redisOptions: { maxRetriesPerRequest: 0, retryStrategy: () => null },
    })
    const error = await store.length('c').catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'StoreError' })
    expect(everything(error)).not.toMatch(/s3cr/)
    await store.close?.()
  })
})

describe('redisStore: a server that quotes the password back', () => {
  it('its refusal reaches the caller as a StoreError without the password', async () => {
    const server = await echoingRedis()
    try {
      const store = await redisStore({
        url: `redis://user:s3cret%40pw@127.0.0.1:${server.port}`,
        timeoutMs: 2000,
        redisOptions: { maxRetriesPerRequest: 0, retryStrategy: () => null },
      })
      const error = await store.length('c').catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'StoreError' })
      // The server did quote it: the refusal is there, with the password taken out.
      expect(everything(error)).toMatch(/WRONGPASS/)
      expect(everything(error)).not.toMatch(/s3cr/)
      await store.close?.()
    } finally {
      await server.close()
    }
  })
})
