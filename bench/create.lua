-- wrk script: durable POST /v1/tokens with a unique name per request.
local threads = {}
function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end
function init(args)
  counter = 0
  key = os.getenv("BENCH_KEY")
  prefix = os.getenv("BENCH_PREFIX") or "bench"
end
function request()
  counter = counter + 1
  local body = string.format('{"name":"%s-%d-%d","scopes":["tokens:read"]}', prefix, tid, counter)
  return wrk.format("POST", "/v1/tokens",
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}, body)
end
