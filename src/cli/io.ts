import { randomBytes } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { ContextWindowError, InvalidInputError } from '../errors.js'
import { fromOpenAIChat, toOpenAIChat } from '../formats/openai-chat.js'
import type { Message } from '../messages/message.js'

/** Thrown for a usage mistake: one line, exit code 2. */
export class UsageError extends ContextWindowError {
  override name = 'UsageError'
}

export interface Input {
  /** The file name, or `stdin`. */
  source: string
  messages: Message[]
  /** Writes messages back in the input's shape (a bare list, or the object with `messages` replaced). */
  encode(messages: readonly Message[]): unknown
}

export function readText(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new UsageError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (e as Error).message}`,
    )
  }
}

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new InvalidInputError(`invalid JSON (${(e as Error).message})`, { source })
  }
}

/** Reads an OpenAI chat conversation: a bare list of messages, or an object with `messages`. */
export function readInput(file: string): Input {
  const source = file === '-' ? 'stdin' : file
  const json = parseJson(readText(file), source)
  try {
    const messages = fromOpenAIChat(json)
    return {
      source,
      messages,
      encode: (out) =>
        Array.isArray(json)
          ? toOpenAIChat(out)
          : { ...(json as object), messages: toOpenAIChat(out) },
    }
  } catch (e) {
    if (e instanceof InvalidInputError) throw e.withSource(source)
    throw e
  }
}

/** Writes a file whole or not at all: a temporary file beside it, then a rename. */
export function writeAtomic(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    writeFileSync(temp, text)
    renameSync(temp, file)
  } catch (e) {
    rmSync(temp, { force: true })
    throw new UsageError(
      `${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    )
  }
}
