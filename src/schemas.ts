/**
 * `context-window/schemas`: the zod schemas of the message format (what `validate` and the
 * codecs check by hand, for an app that checks its own input), and a component config's
 * JSON Schema. Each is exported here only.
 */

export { componentJsonSchema } from './config/component.js'
export {
  assistantMessageSchema,
  contentPartSchema,
  contentSchema,
  filePartSchema,
  imagePartSchema,
  messageSchema,
  providerMetadataSchema,
  systemMessageSchema,
  textPartSchema,
  toolCallSchema,
  toolMessageSchema,
  toolSchemaSchema,
  userMessageSchema,
} from './messages/schema.js'
