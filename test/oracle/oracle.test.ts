import { describe, expect, it } from 'vitest'
import { geminiViolations } from './gemini.js'
import { responsesViolations } from './responses.js'

// The oracles must be able to say no: each rule, broken once.
describe('Responses oracle', () => {
  const call = { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}' }
  const output = { type: 'function_call_output', call_id: 'c1', output: 'ok' }
  const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'e' }
  it('accepts a valid list', () => {
    expect(responsesViolations([{ role: 'user', content: 'hi' }, reasoning, call, output])).toEqual(
      [],
    )
  })
  it('rejects reasoning with nothing of its own after it, a call without output, an output without call', () => {
    expect(responsesViolations([reasoning, { role: 'user', content: 'x' }])[0]).toMatch(
      /without its required following item/,
    )
    expect(responsesViolations([reasoning, reasoning, call, output]).join()).toMatch(
      /following item/,
    )
    expect(responsesViolations([call])[0]).toMatch(/No tool output found/)
    expect(responsesViolations([output])[0]).toMatch(/No tool call found/)
    expect(responsesViolations([call, output, call, output]).join()).toMatch(/duplicate item id/)
  })
  it('takes output_text and refusal parts from the assistant, nothing else', () => {
    const said = (content: unknown) => [
      { role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', status: 'completed', content },
    ]
    expect(
      responsesViolations(
        said([
          { type: 'output_text', text: 'no', annotations: [] },
          { type: 'refusal', refusal: 'I cannot help with that' },
        ]),
      ),
    ).toEqual([])
    expect(responsesViolations(said([{ type: 'input_text', text: 'x' }])).join()).toMatch(
      /must be output_text or refusal/,
    )
    expect(responsesViolations(said([{ type: 'refusal' }])).join()).toMatch(/without its refusal/)
  })
  it('rejects reasoning without encrypted_content under store false, and an id without its reasoning', () => {
    const bare = { type: 'reasoning', id: 'rs_1', summary: [] }
    expect(responsesViolations([bare, call, output], { store: false }).join()).toMatch(
      /store: false/,
    )
    expect(responsesViolations([call, output], {}, [reasoning, call, output]).join()).toMatch(
      /without its required reasoning item: rs_1/,
    )
    const compaction = { type: 'compaction', encrypted_content: 'c' }
    expect(responsesViolations([call, output], {}, [compaction, call, output]).join()).toMatch(
      /compaction/,
    )
  })
})

describe('Gemini oracle', () => {
  const user = { role: 'user', parts: [{ text: 'hi' }] }
  const calls = {
    role: 'model',
    parts: [
      { functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: 'sig' },
      { functionCall: { id: 'b', name: 'g', args: {} } },
    ],
  }
  const answers = {
    role: 'user',
    parts: [
      { functionResponse: { id: 'a', name: 'f', response: {} } },
      { functionResponse: { id: 'b', name: 'g', response: {} } },
    ],
  }
  it('accepts a valid request', () => {
    expect(geminiViolations({ contents: [user, calls, answers] }, [user, calls, answers])).toEqual(
      [],
    )
  })
  it('rejects a wrong role, a model first turn, an empty turn, a short or mixed response turn', () => {
    expect(
      geminiViolations({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }).join(),
    ).toMatch(/role/)
    expect(geminiViolations({ contents: [calls, answers] }).join()).toMatch(
      /start with a user turn/,
    )
    expect(geminiViolations({ contents: [user, { role: 'model', parts: [] }] }).join()).toMatch(
      /must not be empty/,
    )
    const short = { role: 'user', parts: [answers.parts[0]] }
    expect(geminiViolations({ contents: [user, calls, short] }).join()).toMatch(
      /number of function response parts/,
    )
    const mixed = { role: 'user', parts: [...answers.parts, { text: 'and?' }] }
    expect(geminiViolations({ contents: [user, calls, mixed] }).join()).toMatch(/holds other parts/)
    const wrongIds = {
      role: 'user',
      parts: answers.parts.map((p) => ({ functionResponse: { ...p.functionResponse, id: 'z' } })),
    }
    expect(geminiViolations({ contents: [user, calls, wrongIds] }).join()).toMatch(/do not answer/)
  })
  it('accepts media in a function response, and refuses one without a MIME type or with two kinds', () => {
    const withMedia = (parts: unknown) => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            ...answers.parts[0]?.functionResponse,
            response: { output: 'chart' },
            parts,
          },
        },
        answers.parts[1],
      ],
    })
    const image = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }
    expect(geminiViolations({ contents: [user, calls, withMedia([image])] })).toEqual([])
    expect(
      geminiViolations({
        contents: [user, calls, withMedia([{ inlineData: { data: 'AA==' } }])],
      }).join(),
    ).toMatch(/mimeType is required/)
    const both = { ...image, fileData: { mimeType: 'image/png', fileUri: 'gs://b/a.png' } }
    expect(geminiViolations({ contents: [user, calls, withMedia([both])] }).join()).toMatch(
      /exactly one of inlineData and fileData/,
    )
    expect(geminiViolations({ contents: [user, calls, withMedia({})] }).join()).toMatch(
      /must be a list/,
    )
  })
  it('rejects a lost, moved or altered signature', () => {
    const unsigned = {
      role: 'model',
      parts: calls.parts.map(({ functionCall }) => ({ functionCall })),
    }
    expect(
      geminiViolations({ contents: [user, unsigned, answers] }, [user, calls, answers]).join(),
    ).toMatch(/lost the thought signature/)
    const moved = {
      role: 'model',
      parts: [
        { functionCall: calls.parts[0]?.functionCall },
        { ...calls.parts[1], thoughtSignature: 'sig' },
      ],
    }
    expect(
      geminiViolations({ contents: [user, moved, answers] }, [user, calls, answers]).join(),
    ).toMatch(/not the source's part/)
  })
})

describe('oracle rules the entry-point matrix needs', () => {
  it('Gemini: a parallel step whose signed call is not sent may carry its signature on the first call kept', () => {
    const user = { role: 'user', parts: [{ text: 'hi' }] }
    const step = {
      role: 'model',
      parts: [
        { functionCall: { name: 'f', args: {} }, thoughtSignature: 'sig' },
        { functionCall: { name: 'g', args: {} } },
      ],
    }
    const kept = {
      role: 'model',
      parts: [{ functionCall: { name: 'g', args: {} }, thoughtSignature: 'sig' }],
    }
    const answer = { role: 'user', parts: [{ functionResponse: { name: 'g', response: {} } }] }
    const source = [user, step, answer]
    expect(geminiViolations({ contents: [user, kept, answer] }, source)).toEqual([])
    // Another signature, or one no call of that step carried: not the source's.
    const forged = { role: 'model', parts: [{ ...kept.parts[0], thoughtSignature: 'other' }] }
    expect(geminiViolations({ contents: [user, forged, answer] }, source).join()).toMatch(
      /not the source's part/,
    )
  })

  it("Gemini: a shortened text keeps its signature; a signature the source's texts never had is refused", () => {
    const user = { role: 'user', parts: [{ text: 'hi' }] }
    const reply = { role: 'model', parts: [{ text: 'a long answer', thoughtSignature: 'sig' }] }
    const cut = { role: 'model', parts: [{ text: 'a long…', thoughtSignature: 'sig' }] }
    expect(geminiViolations({ contents: [user, cut] }, [user, reply])).toEqual([])
    const forged = { role: 'model', parts: [{ text: 'a long…', thoughtSignature: 'nope' }] }
    expect(geminiViolations({ contents: [user, forged] }, [user, reply]).join()).toMatch(
      /not the source's part/,
    )
  })

  it('Responses: a built-in tool output answers an earlier call of its tool', () => {
    const call = {
      type: 'computer_call',
      id: 'cu_1',
      call_id: 'c1',
      action: { type: 'screenshot' },
    }
    const output = {
      type: 'computer_call_output',
      call_id: 'c1',
      output: { type: 'computer_screenshot' },
    }
    expect(responsesViolations([{ role: 'user', content: 'go' }, call, output])).toEqual([])
    expect(responsesViolations([{ role: 'user', content: 'go' }, output]).join()).toMatch(
      /No computer_call found/,
    )
    const shell = { type: 'local_shell_call_output', call_id: 'c1', output: 'ok' }
    expect(responsesViolations([{ role: 'user', content: 'go' }, call, shell]).join()).toMatch(
      /No local_shell_call found/,
    )
  })
})
