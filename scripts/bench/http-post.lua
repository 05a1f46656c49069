-- wrk script of scripts/bench/http.sh: every request is a POST of the body in the file named by
-- WRK_BODY (a real chat-completions request captured from strata), as JSON with a bearer key.
local f = assert(io.open(assert(os.getenv("WRK_BODY"), "WRK_BODY is not set"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["Authorization"] = "Bearer sk-bench"
