import { describe, expect, it } from 'vitest'
import { CREDENTIAL_MARK, redactCredentials } from './credentials.js'
import type { Message } from './message.js'
import { messageSecrets, quotableFactsOf, withoutCredentials } from './quoted-facts.js'

// A credential is removed where it stands: a key's name, a scheme word, a user name or an
// identifier never becomes a secret that hides the same letters in another message.

const tool = (id: string, content: unknown): Message => ({
  role: 'tool',
  toolCallId: id,
  content: typeof content === 'string' ? content : JSON.stringify(content),
})
const values = (messages: Message[]) =>
  quotableFactsOf(messages)
    .filter((f) => f.kind !== 'tool')
    .map((f) => f.value)
const texts = (messages: Message[]) =>
  withoutCredentials(messages).map((m) => (typeof m.content === 'string' ? m.content : ''))

describe('spans, never words', () => {
  it('one credential block does not make `user` a secret in every other message', () => {
    const history = [
      tool('a', { auth: { user: 'admin', pass: 'S3cr3t!xq' } }),
      tool('b', { user_id: 'user_10', reservation_id: 'ZFA04Y' }),
    ]
    expect(values(history)).toEqual(expect.arrayContaining(['user_10', 'ZFA04Y']))
    const [first, second] = texts(history)
    expect(second).toBe(JSON.stringify({ user_id: 'user_10', reservation_id: 'ZFA04Y' }))
    expect(first).not.toContain('S3cr3t!xq')
    expect(first).toContain('"user":"admin"')
  })

  it('an auth scheme word is not a secret (`basic` beside `basic_economy`)', () => {
    const history = [
      tool('a', { auth: 'basic', flight: 'HAT002' }),
      tool('b', { cabin: 'basic_economy', flight: 'HAT001' }),
    ]
    expect(values(history)).toEqual(['HAT002', 'HAT001'])
    expect(texts(history)[1]).toBe(JSON.stringify({ cabin: 'basic_economy', flight: 'HAT001' }))
    expect(messageSecrets(history[0] as Message)).toEqual([])
  })

  it('a short password is hidden where it stands alone, not inside words elsewhere', () => {
    const history = [
      tool('a', 'redis-cli -h cache -a pa55 ping'),
      tool('b', 'use pa55 again; the pa55word field and spa55 stay'),
    ]
    const [, second] = texts(history)
    expect(second).toBe(`use ${CREDENTIAL_MARK} again; the pa55word field and spa55 stay`)
  })

  it('a passphrase goes whole, and its words stay words elsewhere', () => {
    const history = [
      tool('a', 'passphrase: correct horse battery staple'),
      tool('b', 'the horse and the battery arrived'),
    ]
    const [first, second] = texts(history)
    expect(first).toBe(`passphrase: ${CREDENTIAL_MARK}`)
    expect(second).toBe('the horse and the battery arrived')
  })

  it('a long identifier under an id key is listed, not taken for a token', () => {
    const sheet = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms'
    const graph = 'AAMkAGI2TG93AAA=AAMkADQ0OTM3ZTUyLWQ5YTQtNDNmNi05ZGRhLWE5OTcyYjVjNjhjOABGAAAAAACx'
    const playlist = 'PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf'
    const history = [tool('a', { spreadsheet_id: sheet, message_id: graph, playlist_id: playlist })]
    expect(values(history)).toEqual(expect.arrayContaining([sheet, playlist]))
    expect(texts(history)[0]).toBe(JSON.stringify(JSON.parse(history[0]?.content as string)))
    // The same random-looking value under a secret's name is still hidden.
    expect(redactCredentials(`{"client_secret": "${sheet}"}`)).not.toContain(sheet)
  })

  it('a URL keeps its scheme, host and path; only the secret goes', () => {
    const token = `ghp_${'aB3dE'.repeat(7)}x`
    expect(
      redactCredentials(
        `git remote add origin https://x-access-token:${token}@github.com/org/repo.git`,
      ),
    ).toBe(`git remote add origin https://${CREDENTIAL_MARK}@github.com/org/repo.git`)
    expect(
      redactCredentials(
        'POST https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      ),
    ).toBe(`POST https://api.telegram.org/bot${CREDENTIAL_MARK}/sendMessage`)
    const hook = `https://discord.com/api/webhooks/123456789012345678/${'Ab9_-'.repeat(13)}`
    const red = redactCredentials(hook)
    expect(red.startsWith('https://discord.com/')).toBe(true)
    expect(red).not.toContain('Ab9_-')
  })
})
