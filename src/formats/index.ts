export { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from './openai-chat.js'
