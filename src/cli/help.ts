/** The command's help: one text per command, and the overview (`main`). */
export const HELP: Record<string, string> = {
  main: `context-window: decide what part of a conversation goes into the model's context window.

Usage: context-window <command> FILE|-|--example [options]
       context-window --version

Commands:
  fit       fit a conversation to a token budget (the main job)
  count     tokens per message and in total
  validate  check a conversation against a provider's rules

Input: a conversation as JSON in any of these formats, detected (or --format F):
openai-chat, openai-responses, anthropic, gemini, ai-sdk, autogen, langchain. Output
keeps the input's format.
FILE - reads standard input; --example uses the conversation shipped with the package
(a τ-bench airline booking, 36 messages).
Run "context-window <command> --help" for a command's options and examples.`,
  fit: `Usage: context-window fit FILE|-|--example [options]

Options:
  --budget N          tokens the request may use
  --model M           model id: its window is the budget when --budget is not given
  --window N          the model's context window, for a model the table does not know
                      (or a deployment smaller than the table says)
  --max-output N      the model's output limit, beside --window (default: a quarter of it)
  --reserve N         tokens kept free for the reply (default with --model: its output
                      limit, at most a quarter of the window; with --budget: 0)
  --tools FILE        tool definitions sent with the request (JSON: a list in any SDK's
                      shape, or a request with "tools"): counted against the budget
                      (the package's examples/airline-tools.json holds the example's)
  --strategy S        tokenLimited (default), buffered, headAndTail, userTurns, scoreBased,
                      mostRelevant, summarizing, unbounded
  --size N            buffered: messages to keep
  --head N --tail N   headAndTail: oldest and newest messages to keep
  --turns N           userTurns: user turns to keep
  --drop-from WHERE   tokenLimited: oldest (default) or middle
  --query TEXT        what the next call is about (relevance strategies)
  --ledger / --no-ledger
                      list the facts of dropped messages in one message (default:
                      on for the default strategy when the history has tool calls)
  --pin I[,I...]      send these messages (by the index the rows show) whenever the system
                      prompt is, verbatim, whatever the strategy; a message in the input with
                      "pinned": true is pinned too
  --provider P        openai, anthropic, openai-responses or gemini: whose rules the output
                      passes (default: the input's own provider, else openai)
  --format F          auto (default), openai-chat, openai-responses, anthropic, gemini,
                      ai-sdk, autogen, langchain
  --out FILE          write the fitted conversation, in the input's shape (- : standard
                      output; the summary then goes to standard error)
  --report FILE       write a self-contained HTML report of what was kept and why (- : stdout)
  --example           fit the conversation shipped with the package instead of FILE
  --clear-tool-results N       replace the results of all but the newest N tool exchanges
  --max-tokens-per-message N   cut any longer message to N tokens, with a marker
  --clear-thinking N|all       keep reasoning in the newest N assistant turns only
  --native TARGET              anthropic or openai-responses: run --clear-tool-results,
                               --clear-thinking and --compact-at at the provider where it
                               can; prints the request fields (context_management)
    --compact-at N             compact once the input passes N tokens
    --provider-response FILE   a saved provider response: report what it did
  --strategy summarizing       summarize old history (options below)
    --summarizer S             extractive (default, offline) or openai (any compatible server)
    --base-url URL --summary-model M --api-key-env VAR   for --summarizer openai
    --trigger X                a fraction of the budget (0.8) or a token count
    --leave-last N             the newest N units are never summarized (default 2)
  --json              print the full result as JSON
  --quiet, -q         the summary only, no row per message (for long files): with --json,
                      the summary's fields without the lists; for a folder, no progress

  A strategy's own flags (--size, --head, --tail, --turns, --drop-from, --query, the
  summarizing ones) are refused with another strategy.

  FILE may be a folder: every *.json in it is fitted into --out-dir OUT, with progress
  on standard error; a bad file is reported and skipped (exit 1 when any failed).

Exit codes: 0 fitted, 1 some files of a folder failed, 2 bad input or options,
3 even the system prompt, the pinned messages and the newest turn do not fit.

Examples:
  context-window fit --example --budget 3000
  context-window fit --example --model gpt-4o-mini --reserve 1000 --out fitted.json
  context-window fit --example --model my-finetune --window 8000 --max-output 1000
  context-window fit --example --budget 3000 --quiet --json
  context-window fit --example --strategy buffered --size 6 --json
  context-window fit --example --budget 3000 --report report.html
  context-window fit --example --budget 3000 --out - | context-window count -
  context-window fit --example --budget 3000 --strategy summarizing --trigger 0.5
  context-window fit --example --budget 3000 --clear-tool-results 2
  context-window fit --example --budget 3000 --native anthropic --clear-tool-results 2 --clear-thinking 1 --compact-at 100000`,
  count: `Usage: context-window count FILE|-|--example [--model M [--window N [--max-output N]]] [--tools FILE] [--format F] [--json] [--quiet]

--window N gives the context window of a model the table does not know (its tokens are
then counted by the file's provider's rule), and --max-output N its output limit (default:
a quarter of the window). --tools FILE counts tool definitions with the
messages (JSON: a list in any SDK's shape, or a request with "tools"; the package's
examples/airline-tools.json holds the example's). --quiet prints the total only, not a row
per message (with --json: no per-message list).

Examples:
  context-window count --example
  context-window count --example --model claude-sonnet-4-5
  context-window count --example --model my-finetune --window 8000
  context-window count --example --quiet --json`,
  validate: `Usage: context-window validate FILE|-|--example [--provider openai|anthropic|openai-responses|gemini] [--format F] [--json] [--quiet]

Errors are rules the provider refuses the request for; warnings are changes it makes to
an accepted request (two user turns in a row merged, a thought not sent). --quiet prints the
counts only, not each problem (with --json: no lists).

Exit codes: 0 valid (warnings or none), 1 an error, 2 bad input.

Examples:
  context-window validate --example
  context-window validate --example --provider anthropic`,
}
