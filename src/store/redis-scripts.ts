/** The Lua scripts the Redis store runs, each one step on the server: append, put a summary, clear. */
/** How long a finished append remembers its id, so a resent script does not append twice. */
export const APPEND_ID_SECONDS = 3600

/**
 * Appends several messages, bumps the version and refreshes the TTL in one step, once per
 * append id: a client that lost the reply and sends the script again gets the first
 * answer back instead of a second copy of the messages.
 * KEYS: messages, version, summaries, append id. ARGV: expected length (-1: any), ttl (0: none),
 * id ttl, how many of the entries are the seed (pushed only into an empty list), entries...
 */
export const APPEND = `
local done = redis.call('GET', KEYS[4])
if done then
  local sep = string.find(done, ':')
  return {tonumber(string.sub(done, 1, sep - 1)), tonumber(string.sub(done, sep + 1))}
end
local len = redis.call('LLEN', KEYS[1])
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= len then return {-1, len} end
local first = 5
if len > 0 then first = 5 + tonumber(ARGV[4]) end
for i = first, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
local version = redis.call('INCR', KEYS[2])
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ttl) end
end
local length = len + #ARGV - first + 1
redis.call('SET', KEYS[4], length .. ':' .. version, 'EX', tonumber(ARGV[3]))
return {length, version}
`

/**
 * Adds a summary and takes out those it supersedes (ending at or before its end), in one
 * step. A stored record that cannot be read is left for the reader to report.
 * KEYS: summaries, version. ARGV: expected version (-1: any), ttl, record, record's end.
 */
export const PUT_SUMMARY = `
local version = tonumber(redis.call('GET', KEYS[2]) or '0')
local expected = tonumber(ARGV[1])
if expected >= 0 and expected ~= version then return {-1, version} end
local stop = tonumber(ARGV[4])
local kept = {}
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, s = pcall(cjson.decode, raw)
  local r = ok and type(s) == 'table' and s.replaces
  local e = type(r) == 'table' and tonumber(r[2])
  if not e or e > stop then kept[#kept + 1] = raw end
end
redis.call('DEL', KEYS[1])
for _, raw in ipairs(kept) do redis.call('RPUSH', KEYS[1], raw) end
redis.call('RPUSH', KEYS[1], ARGV[3])
version = redis.call('INCR', KEYS[2])
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) redis.call('EXPIRE', KEYS[2], ttl) end
return {1, version}
`

/**
 * Takes out the messages and summaries and bumps the version, in one step.
 * KEYS: messages, summaries, version. ARGV: ttl (0: none).
 */
export const CLEAR = `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('INCR', KEYS[3])
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('EXPIRE', KEYS[3], ttl) end
return 1
`
