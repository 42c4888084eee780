// One runnable example per strategy, on the bundled τ-bench conversation.
// Run: npx tsx examples/strategies.ts
import { readFileSync } from 'node:fs'
import {
  buffered,
  ChatContext,
  dropThoughts,
  fit,
  fromOpenAIChat,
  headAndTail,
  tokenLimited,
  toOpenAIChat,
  userTurns,
  validate,
} from 'context-window'
import { unbounded } from 'context-window/advanced'

const file = new URL('./airline-booking.json', import.meta.url)
const history = fromOpenAIChat(JSON.parse(readFileSync(file, 'utf8')))

const show = (label: string, r: ReturnType<typeof fit>) =>
  console.log(
    `${label.padEnd(36)} kept ${String(r.kept.length).padStart(2)}/${history.length}` +
      `  ${String(r.tokens.total).padStart(5)} tokens  valid: ${validate(r.messages).valid}`,
  )

// AutoGen UnboundedChatCompletionContext: everything.
show('unbounded()', fit(history, { strategy: unbounded() }))

// AutoGen BufferedChatCompletionContext(buffer_size=6): the newest 6 messages (whole units).
show('buffered({ size: 6 })', fit(history, { strategy: buffered({ size: 6 }) }))

// AutoGen HeadAndTailChatCompletionContext(head_size=2, tail_size=6): with a placeholder.
const ht = fit(history, { strategy: headAndTail({ head: 2, tail: 6 }) })
show('headAndTail({ head: 2, tail: 6 })', ht)
console.log(`  placeholder: ${JSON.stringify(ht.inserted[0]?.message.content)}`)

// AutoGen TokenLimitedChatCompletionContext(token_limit=3000): the newest units that fit.
show('tokenLimited({ limit: 3000 })', fit(history, { strategy: tokenLimited({ limit: 3000 }) }))

// The same, dropping from the middle as AutoGen does.
show(
  "tokenLimited({ dropFrom: 'middle' })",
  fit(history, { strategy: tokenLimited({ limit: 3000, dropFrom: 'middle' }) }),
)

// agentflow MessageContextManager(max_messages=2): the last 2 user turns.
show('userTurns({ maxTurns: 2 })', fit(history, { strategy: userTurns({ maxTurns: 2 }) }))
show(
  'userTurns({ ..., removeToolExchanges })',
  fit(history, { strategy: userTurns({ maxTurns: 3, removeToolExchanges: true }) }),
)

// A transform before any strategy: reasoning text out of older messages.
show('dropThoughts() + tokenLimited', fit(history, { budget: 3000, transforms: [dropThoughts()] }))

// By name, as a JSON config or the CLI would say it.
show(
  "'tokenLimited' by name, gpt-4o-mini",
  fit(history, { strategy: 'tokenLimited', model: 'gpt-4o-mini' }),
)

// The stateful context of an agent loop: add each message, ask for the view before each call.
const ctx = new ChatContext({ budget: 2500, initialMessages: history.slice(0, 1) })
for (const m of history.slice(1)) ctx.addMessage(m)
const view = await ctx.getMessages()
console.log(`ChatContext({ budget: 2500 })       sends ${view.length} of ${ctx.length} messages`)
console.log(
  `  first kept message after the policy: ${JSON.stringify(toOpenAIChat(view)[1]?.content).slice(0, 60)}…`,
)
