-- SPDX-License-Identifier: BSD-3-Clause
-- Pktgen-DPDK driver for perf/pktgen: send on port 0 in timed steps and record what
-- pktgen counted in each, then quit. Everything comes from the environment, so one script
-- serves every phase (perf/README.md, "pktgen"):
--   PG_SETUP     a command file (pktgen CLI lines) loaded first: addresses, range, pcap
--   PG_STEPS     "RATE:SECONDS ..." (RATE in % of the port's link speed, as `set 0 rate`;
--                "A/B": port 0 at A %, port 1 at B %, for equal frame rates on ports whose
--                frames differ in size: pktgen paces a pcap by its mean frame's wire size;
--                "P-Q@A/B": ports P and Q alone, P at A % and Q at B %, the others idle:
--                P1's interleaved runs send on one memif pair, then the other, in turns;
--                "P@R": port P alone at R %, the others idle: P2x's floods, port 0's
--                then port 2's)
--   PG_PORTS     the ports to start and count (default "0")
--   PG_HOOK      a shell command with one %s: run with "begin-N" / "end-N" around step N
--                (perf/pktgen snapshots routerd's counters there)
--   PG_STOP_FILE the last step ends when this file exists (its SECONDS are then the cap)
--   PG_OUT       where the result lines go ("step N rate R secs S tx T rx X")
-- The screen is pktgen's, so results go to a file, never to stdout.

local out = assert(io.open(assert(os.getenv("PG_OUT"), "PG_OUT"), "w"))
local ports = os.getenv("PG_PORTS") or "0"
-- Empty is unset (the shell passes every variable, set or not).
local function env(name)
	local v = os.getenv(name)
	if v == "" then return nil end
	return v
end
local hook = env("PG_HOOK")
local stop_file = env("PG_STOP_FILE")

local function log(fmt, ...)
	out:write(string.format(fmt, ...) .. "\n")
	out:flush()
end

local function exists(path)
	local f = io.open(path, "r")
	if f then f:close() end
	return f ~= nil
end

-- Sum of pktgen's port counters over the ports of a step (PORTS: "0", "0-1", "2-3").
local function counts(pl)
	local tx, rx = 0, 0
	local lo, hi = string.match(pl, "^(%d+)-(%d+)$")
	local list = {}
	if lo then
		for p = tonumber(lo), tonumber(hi) do list[#list + 1] = tostring(p) end
	else
		for p in string.gmatch(pl, "%d+") do list[#list + 1] = p end
	end
	for _, p in ipairs(list) do
		local s = pktgen.portStats(p, "port")[tonumber(p)]
		tx = tx + s.opackets
		rx = rx + s.ipackets
	end
	return tx, rx
end

-- Monotonic enough for step lengths: pktgen.delay() is what paces the steps, the clock
-- only measures them (os.time is whole seconds; the shell's date has nanoseconds).
local function now()
	local p = io.popen("date +%s.%N")
	local t = tonumber(p:read("*l"))
	p:close()
	return t
end

local setup = env("PG_SETUP")
if setup then pktgen.load(setup) end
log("setup done")

local steps = {}
for r, s in string.gmatch(os.getenv("PG_STEPS") or "100:5", "([%d./@-]+):(%d+)") do
	steps[#steps + 1] = { rate = r, secs = tonumber(s) }
end

for i, st in ipairs(steps) do
	local sp = ports
	local p, q, rate = string.match(st.rate, "^(%d+)-(%d+)@(.+)$")
	local single, single_rate = string.match(st.rate, "^(%d+)@([%d.]+)$")
	if p then
		sp = p .. "-" .. q
	elseif single then
		sp, p, q, rate = single, single, single, single_rate
	else
		p, q, rate = "0", "1", st.rate
	end
	local a, b = string.match(rate, "^([%d.]+)/([%d.]+)$")
	if a then
		pktgen.set(p, "rate", a)
		pktgen.set(q, "rate", b)
	else
		pktgen.set(sp, "rate", rate)
	end
	pktgen.clr()
	-- pktgen refreshes its port counters about once a second: wait for a fresh
	-- snapshot before and after each step.
	pktgen.delay(1200)
	if hook then os.execute(string.format(hook, "begin-" .. i)) end
	local t0 = now()
	local tx0, rx0 = counts(sp)
	pktgen.start(sp)
	if stop_file and i == #steps then
		local waited = 0
		while not exists(stop_file) and waited < st.secs * 1000 do
			pktgen.delay(200)
			waited = waited + 200
		end
	else
		pktgen.delay(st.secs * 1000)
	end
	pktgen.stop(sp)
	local t1 = now()
	-- In-flight frames land within a few ms; then one counter refresh.
	pktgen.delay(1200)
	local tx1, rx1 = counts(sp)
	if hook then os.execute(string.format(hook, "end-" .. i)) end
	log("step %d rate %s secs %.3f tx %d rx %d", i, st.rate, t1 - t0, tx1 - tx0, rx1 - rx0)
end
log("done")
out:close()
pktgen.quit()
