// The loopback provider the examples start by themselves, under the names the tests use.
export {
  type LoopbackOptions as LimitedServerOptions,
  type LoopbackProvider as LimitedServer,
  startLoopbackProvider as startLimitedServer,
} from '../../examples/loopback/server.js'
