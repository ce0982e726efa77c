-- wrk script: POST each body of a list once (Benchmarks/serve.py's merchant figures).
--
--   wrk -t1 -c32 -d5s -s Benchmarks/post-each.lua URL -- LIST CONTENT-TYPE KEY [EXPECTED]
--
-- LIST names one file per line; each request posts the next file's bytes, so every save is a new
-- order and writes (one thread only: the list isn't shared between threads). The list must hold
-- more bodies than the run sends. A response that isn't 200 with EXPECTED in it (by default
-- "added", with its quotes: the service's answer to a new order) counts as failed; done() prints
-- `posted N failed M` for serve.py to read.

local bodies = {}
local headers = {}
local next_body = 1
local expected = '"added"'
answered = 0
failed = 0
first_failure = ""

function init(args)
    local list, content_type, key = args[1], args[2], args[3]
    if args[4] then expected = args[4] end
    for path in io.lines(list) do
        local file = assert(io.open(path, "rb"))
        bodies[#bodies + 1] = file:read("*a")
        file:close()
    end
    headers["Content-Type"] = content_type
    headers["Authorization"] = "Bearer " .. key
end

function request()
    local body = bodies[next_body]
    if body == nil then
        -- Every body was sent: the list was too short for the run. Send the last again (its
        -- answer isn't `added`, so it counts as failed and serve.py says to raise UPLOADS).
        body = bodies[#bodies]
    end
    next_body = next_body + 1
    return wrk.format("POST", nil, headers, body)
end

function response(status, response_headers, body)
    answered = answered + 1
    if status ~= 200 or not string.find(body, expected, 1, true) then
        failed = failed + 1
        if first_failure == "" then first_failure = status .. " " .. string.sub(body, 1, 300) end
    end
end

local threads = {}

function setup(thread)
    threads[#threads + 1] = thread
end

function done(summary, latency, requests)
    for _, thread in ipairs(threads) do
        io.write(string.format("posted %d failed %d\n", thread:get("answered") or 0, thread:get("failed") or 0))
        local first = thread:get("first_failure")
        if first and first ~= "" then io.write("first failure: " .. first .. "\n") end
    end
end
