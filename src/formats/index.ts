export { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from './openai-chat.js'
export { ANTHROPIC, type AnthropicRequest, fromAnthropic, type Loss, toAnthropic } from './anthropic-messages.js'
