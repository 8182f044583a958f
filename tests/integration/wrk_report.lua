-- SPDX-License-Identifier: BSD-3-Clause
-- wrk -s wrk_report.lua: at the end of a run, one JSON line with its figures, so tests and
-- benchmarks read numbers instead of wrk's human text (which omits zero error lines).
-- errors.status counts answers outside 2xx/3xx; latencies are in microseconds.
done = function(summary, latency, requests)
	io.write(string.format(
		'{"requests":%d,"bytes":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,' ..
		'"status":%d,"timeout":%d,"lat_p50_us":%d,"lat_p99_us":%d,"lat_max_us":%d}\n',
		summary.requests, summary.bytes, summary.duration, summary.errors.connect, summary.errors.read,
		summary.errors.write, summary.errors.status, summary.errors.timeout,
		latency:percentile(50), latency:percentile(99), latency.max))
end

-- SY_WRK_MIX="host path;host path;...": the thread's requests go round those (Host, path)
-- pairs, each request a connection sends being the next (perf/proxy's workload); -H headers
-- (Connection: close) still apply.
local mix = os.getenv("SY_WRK_MIX")
if mix ~= nil and mix ~= "" then
	local pairs_, reqs, i = {}, nil, 0
	for host, path in string.gmatch(mix, "([^%s;]+)%s+([^%s;]+)") do
		table.insert(pairs_, { host, path })
	end
	request = function()
		if reqs == nil then
			reqs = {}
			for k, p in ipairs(pairs_) do
				local h = {}
				for name, value in pairs(wrk.headers) do h[name] = value end
				h["Host"] = p[1]
				reqs[k] = wrk.format(nil, p[2], h)
			end
		end
		i = i % #reqs + 1
		return reqs[i]
	end
end
