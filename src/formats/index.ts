export {
  ANTHROPIC,
  type AnthropicRequest,
  fromAnthropic,
  type Loss,
  toAnthropic,
} from './anthropic-messages.js'
export { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from './openai-chat.js'
