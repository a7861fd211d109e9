-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- torus.lua - Wireshark dissector for torus fabric frames (ethertype
-- 0x88B5, uapi/linux/torus.h): the 32-byte header, torusd's control
-- messages (discovery TLVs 'T', link state 'L'; daemon/core/tcore_wire.h),
-- collective frames (struct torus_coll_hdr), and data frames whose
-- IPv4/IPv6 packet is handed to Wireshark's own dissectors.
--
--   tshark -X lua_script:tools/wireshark/torus.lua -r capture.pcap
--   wireshark: copy to ~/.local/lib/wireshark/plugins/
--
-- Coordinates are shown for the first "axes" axes (preference, default
-- 3); every axis is in the per-axis subfields (torus.dst.x ...).

local torus = Proto("torus", "torus fabric")

local AXES = { "x", "y", "z", "a", "b", "c", "d", "e" }
local MAX_AXES = 8
local HDR_LEN = 32

local frame_types = { [1] = "data", [2] = "control", [3] = "collective" }
local coll_phases = { [1] = "up", [2] = "down", [3] = "abort",
	[4] = "ready" }
local coll_kinds = { [0] = "barrier", [1] = "allreduce", [2] = "broadcast",
	[3] = "reduce" }
local coll_types = {
	[0] = "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
	"uint64", "float", "double" }
local coll_ops = {
	[0] = "sum", "prod", "min", "max", "band", "bor", "bxor", "land",
	"lor", "lxor", "minloc", "maxloc" }
local tlv_types = {
	[1] = "id", [2] = "port", [3] = "neighbors", [4] = "block",
	[5] = "frame", [6] = "extent", [7] = "face", [8] = "orient",
	[9] = "orient failed", [10] = "open ends", [11] = "ring epochs",
	[12] = "lines counted from their start", [13] = "trusted cables" }

local function dir_name(d)
	if d == 0xff then
		return "none"
	end
	local axis = AXES[bit.rshift(d, 1) + 1] or "?"
	return (bit.band(d, 1) == 1 and "-" or "+") .. axis
end

local f = torus.fields
f.version = ProtoField.uint8("torus.version", "Version")
f.type = ProtoField.uint8("torus.type", "Type", base.DEC, frame_types)
f.hop_limit = ProtoField.uint8("torus.hop_limit", "Hop limit")
f.flags = ProtoField.uint8("torus.flags", "Flags", base.HEX)
f.flag_via = ProtoField.bool("torus.flags.via", "Via (round 1 first)", 8,
	nil, 0x01)
f.flag_detour = ProtoField.bool("torus.flags.detour", "Detour taken", 8,
	nil, 0x02)
f.flag_plan1 = ProtoField.uint8("torus.flags.plan1", "Plan of round 1",
	base.DEC, nil, 0xe0)
f.proto = ProtoField.uint16("torus.proto", "Protocol", base.HEX)
f.vc = ProtoField.uint8("torus.vc", "Virtual channel")
f.vc_plan = ProtoField.uint8("torus.vc.plan", "Plan", base.DEC, nil, 0xfc)
f.vc_round = ProtoField.uint8("torus.vc.round", "Round", base.DEC, nil, 0x02)
f.vc_dateline = ProtoField.uint8("torus.vc.dateline", "Dateline", base.DEC,
	nil, 0x01)
f.traversed = ProtoField.uint8("torus.traversed", "Detoured axes", base.HEX)
local coord_fields = {}
for _, name in ipairs({ "dst", "src", "via" }) do
	f[name] = ProtoField.string("torus." .. name, name:sub(1, 1):upper() ..
		name:sub(2) .. " coordinates")
	coord_fields[name] = {}
	for i, axis in ipairs(AXES) do
		local pf = ProtoField.uint8("torus." .. name .. "." .. axis, axis)
		f[name .. "_" .. axis] = pf
		coord_fields[name][i] = pf
	end
end

-- control: discovery TLVs
f.msg = ProtoField.string("torus.ctrl.kind", "Control message")
f.msg_version = ProtoField.uint8("torus.ctrl.version", "Message version")
f.tlv = ProtoField.none("torus.ctrl.tlv", "TLV")
f.tlv_type = ProtoField.uint8("torus.ctrl.tlv_type", "Type", base.DEC,
	tlv_types)
f.tlv_len = ProtoField.uint8("torus.ctrl.tlv_len", "Length")
f.id = ProtoField.uint64("torus.ctrl.id", "Sender id", base.HEX)
f.port = ProtoField.string("torus.ctrl.port", "Sender's port label")
f.nbr = ProtoField.string("torus.ctrl.neighbor", "Neighbor (label, id hash)")
f.block = ProtoField.uint32("torus.ctrl.block", "Block id", base.HEX)
f.leader = ProtoField.uint64("torus.ctrl.leader", "Leader", base.HEX)
f.frame_flags = ProtoField.uint8("torus.ctrl.frame_flags", "Frame flags",
	base.HEX)
f.placed = ProtoField.bool("torus.ctrl.placed", "Placed", 8, nil, 0x01)
f.joined = ProtoField.bool("torus.ctrl.joined", "Joined", 8, nil, 0x02)
f.ndims = ProtoField.uint8("torus.ctrl.ndims", "Axes")
f.coord = ProtoField.string("torus.ctrl.coord", "Coordinates")
f.rotation = ProtoField.string("torus.ctrl.rotation", "Port labels per axis")
f.extent = ProtoField.string("torus.ctrl.extent", "Extent (gcd, min, max)")
f.face = ProtoField.string("torus.ctrl.face", "Face cable")
f.orient = ProtoField.string("torus.ctrl.orient", "Face orientation")
f.open = ProtoField.string("torus.ctrl.open",
	"Open and closed ends (omin, omax, cmin, cmax)")
f.epoch = ProtoField.string("torus.ctrl.epoch", "Ring epochs")
f.kview = ProtoField.uint8("torus.ctrl.kview", "Lines counted from their start",
	base.HEX)
f.trusted = ProtoField.string("torus.ctrl.trusted", "Trusted cables (labels)")
-- control: link state
f.ls_nrec = ProtoField.uint8("torus.ls.records", "Records")
f.ls_geom = ProtoField.uint32("torus.ls.geometry",
	"Geometry (hash of the extents and wrap)", base.HEX)
f.ls_rec = ProtoField.string("torus.ls.record",
	"Record (coordinates, seq, cables down)")
-- collectives
f.coll_phase = ProtoField.uint8("torus.coll.phase", "Phase", base.DEC,
	coll_phases)
f.coll_kind = ProtoField.uint8("torus.coll.kind", "Kind", base.DEC,
	coll_kinds)
f.coll_type = ProtoField.uint8("torus.coll.type", "Element type", base.DEC,
	coll_types)
f.coll_op = ProtoField.uint8("torus.coll.op", "Operation", base.DEC,
	coll_ops)
f.coll_flags = ProtoField.uint8("torus.coll.flags", "Flags", base.HEX)
f.coll_group = ProtoField.uint16("torus.coll.group", "Group", base.HEX)
-- TORUS_COLL_GROUP_LIST: a node list (its number below), routed
f.coll_group_list = ProtoField.bool("torus.coll.group.list", "Node list",
	16, nil, 0x8000)
f.coll_group_id = ProtoField.uint16("torus.coll.group.id",
	"Axes, or the node list's number", base.DEC, nil, 0x7fff)
f.coll_seq = ProtoField.uint32("torus.coll.seq", "Sequence")
f.coll_count = ProtoField.uint32("torus.coll.count", "Elements")
f.coll_first = ProtoField.uint32("torus.coll.first", "First element")
f.coll_n = ProtoField.uint32("torus.coll.n", "Elements here")
f.coll_value = ProtoField.uint64("torus.coll.value", "Element", base.HEX)

local e_short = ProtoExpert.new("torus.short", "Truncated", expert.group.MALFORMED,
	expert.severity.ERROR)
local e_tlv = ProtoExpert.new("torus.bad_tlv", "Bad TLV length",
	expert.group.MALFORMED, expert.severity.WARN)
torus.experts = { e_short, e_tlv }

torus.prefs.axes = Pref.uint("Axes shown", 3,
	"Coordinates are shown for this many axes (1-8)")

local ethertype = DissectorTable.get("ethertype")
local data_dis = Dissector.get("data")

local function coord_text(tvb, off, n)
	local t = {}
	for i = 0, n - 1 do
		t[#t + 1] = tostring(tvb(off + i, 1):uint())
	end
	return table.concat(t, ",")
end

local function s16(tvb, off)
	local v = tvb(off, 2):uint()
	return v >= 0x8000 and v - 0x10000 or v
end

local function add_coord(tree, tvb, off, name)
	local axes = math.max(1, math.min(MAX_AXES, torus.prefs.axes))
	local sub = tree:add(f[name], tvb(off, MAX_AXES), coord_text(tvb, off, axes))
	for i = 1, MAX_AXES do
		sub:add(coord_fields[name][i], tvb(off + i - 1, 1))
	end
	return coord_text(tvb, off, axes)
end

local function dissect_tlvs(tvb, pinfo, tree)
	local off, len = 2, tvb:len()
	local kinds = {}
	while off + 2 <= len do
		local t, l = tvb(off, 1):uint(), tvb(off + 1, 1):uint()
		if t == 0 and l == 0 then
			break	-- Ethernet padding
		end
		local name = tlv_types[t] or ("type " .. t)
		local sub = tree:add(f.tlv, tvb(off, math.min(2 + l, len - off)))
		sub:set_text(name .. " (" .. l .. " bytes)")
		sub:add(f.tlv_type, tvb(off, 1))
		sub:add(f.tlv_len, tvb(off + 1, 1))
		if off + 2 + l > len then
			sub:add_proto_expert_info(e_short)
			break
		end
		local v = off + 2
		kinds[#kinds + 1] = name
		if t == 1 and l == 8 then
			sub:add(f.id, tvb(v, 8))
		elseif t == 2 and l == 1 then
			sub:add(f.port, tvb(v, 1), dir_name(tvb(v, 1):uint()))
		elseif t == 3 and l % 5 == 0 then
			for i = 0, l / 5 - 1 do
				local p = v + 5 * i
				sub:add(f.nbr, tvb(p, 5), string.format("%s %08x",
					dir_name(tvb(p, 1):uint()), tvb(p + 1, 4):uint()))
			end
		elseif t == 4 and l >= 5 then
			sub:add(f.block, tvb(v, 4))
			local n = tvb(v + 4, 1):uint()
			sub:add(f.ndims, tvb(v + 4, 1))
			if l == 5 + n then
				sub:add(f.coord, tvb(v + 5, n), coord_text(tvb, v + 5, n))
			end
		elseif t == 5 and l >= 10 then
			local n = tvb(v + 9, 1):uint()
			sub:add(f.leader, tvb(v, 8))
			local fl = sub:add(f.frame_flags, tvb(v + 8, 1))
			fl:add(f.placed, tvb(v + 8, 1))
			fl:add(f.joined, tvb(v + 8, 1))
			sub:add(f.ndims, tvb(v + 9, 1))
			if l == 10 + 3 * n then
				local r, c = {}, {}
				for i = 0, n - 1 do
					r[#r + 1] = dir_name(tvb(v + 10 + i, 1):uint())
					c[#c + 1] = tostring(s16(tvb, v + 10 + n + 2 * i))
				end
				sub:add(f.rotation, tvb(v + 10, n), table.concat(r, ","))
				sub:add(f.coord, tvb(v + 10 + n, 2 * n), table.concat(c, ","))
			else
				sub:add_proto_expert_info(e_tlv)
			end
		elseif t == 6 and l >= 1 and l == 1 + 6 * tvb(v, 1):uint() then
			sub:add(f.ndims, tvb(v, 1))
			for i = 0, tvb(v, 1):uint() - 1 do
				local p = v + 1 + 6 * i
				sub:add(f.extent, tvb(p, 6), string.format("%s: %d, %d, %d",
					AXES[i + 1], tvb(p, 2):uint(), s16(tvb, p + 2),
					s16(tvb, p + 4)))
			end
		elseif t == 7 and l >= 7 and l == 7 + 2 * tvb(v + 6, 1):uint() then
			local n = tvb(v + 6, 1):uint()
			sub:add(f.face, tvb(v, l), string.format(
				"block %08x, %s -> %s, at %s / %s", tvb(v, 4):uint(),
				dir_name(tvb(v + 4, 1):uint()), dir_name(tvb(v + 5, 1):uint()),
				coord_text(tvb, v + 7, n), coord_text(tvb, v + 7 + n, n)))
		elseif (t == 8 and l >= 6 and l == 6 + tvb(v + 5, 1):uint()) or
		       (t == 9 and l == 5) then
			local m = {}
			for i = 0, (t == 8 and tvb(v + 5, 1):uint() or 0) - 1 do
				m[#m + 1] = dir_name(tvb(v + 6 + i, 1):uint())
			end
			sub:add(f.orient, tvb(v, l), string.format("block %08x, normal %s%s",
				tvb(v, 4):uint(), dir_name(tvb(v + 4, 1):uint()),
				t == 9 and ": failed" or ", map " .. table.concat(m, ",")))
		elseif t == 10 and l >= 1 and l == 1 + 8 * tvb(v, 1):uint() then
			for i = 0, tvb(v, 1):uint() - 1 do
				local p = v + 1 + 8 * i
				sub:add(f.open, tvb(p, 8), string.format("%s: %d, %d, %d, %d",
					AXES[i + 1], s16(tvb, p), s16(tvb, p + 2),
					s16(tvb, p + 4), s16(tvb, p + 6)))
			end
		elseif t == 11 and l >= 2 and l == 2 + 2 * tvb(v, 1):uint() then
			local n, e = tvb(v, 1):uint(), {}
			for i = 0, n - 1 do
				e[#e + 1] = tostring(tvb(v + 1 + 2 * i, 2):uint())
			end
			sub:add(f.epoch, tvb(v, l), table.concat(e, ",") ..
				string.format(" (current axes %02x)", tvb(v + 1 + 2 * n, 1):uint()))
		elseif t == 12 and l == 2 then
			sub:add(f.ndims, tvb(v, 1))
			sub:add(f.kview, tvb(v + 1, 1))
		elseif t == 13 and l == 2 then
			local mask, labels = tvb(v, 2):uint(), {}
			for i = 0, 15 do
				if bit.band(mask, bit.lshift(1, i)) ~= 0 then
					labels[#labels + 1] = dir_name(i)
				end
			end
			sub:add(f.trusted, tvb(v, 2), #labels > 0 and
				table.concat(labels, ",") or "none")
		elseif tlv_types[t] then
			sub:add_proto_expert_info(e_tlv)
		end
		off = off + 2 + l
	end
	return table.concat(kinds, ",")
end

local function dissect_ls(tvb, pinfo, tree)
	-- version 3: u32 geometry after the leader, u32 sequence numbers
	-- (tcore_wire.h)
	if tvb:len() < 24 then
		tree:add_proto_expert_info(e_short)
		return "link state (truncated)"
	end
	local n, nrec = tvb(2, 1):uint(), tvb(3, 1):uint()
	tree:add(f.ndims, tvb(2, 1))
	tree:add(f.ls_nrec, tvb(3, 1))
	tree:add(f.id, tvb(4, 8))
	tree:add(f.leader, tvb(12, 8))
	tree:add(f.ls_geom, tvb(20, 4))
	for i = 0, nrec - 1 do
		local p = 24 + i * (n + 6)
		if p + n + 6 > tvb:len() then
			tree:add_proto_expert_info(e_short)
			break
		end
		local mask, down = tvb(p + n + 4, 2):uint(), {}
		for d = 0, 2 * n - 1 do
			if bit.band(mask, bit.lshift(1, d)) ~= 0 then
				down[#down + 1] = dir_name(d)
			end
		end
		tree:add(f.ls_rec, tvb(p, n + 6), string.format("%s, %d, [%s]",
			coord_text(tvb, p, n), tvb(p + n, 4):uint(),
			table.concat(down, ",")))
	end
	return nrec == 0 and "link state request" or
		string.format("link state, %d records", nrec)
end

local function dissect_ctrl(tvb, pinfo, tree)
	if tvb:len() < 2 then
		return "control (empty)"
	end
	local magic = tvb(0, 1):uint()
	tree:add(f.msg_version, tvb(1, 1))
	if magic == 0x54 then
		tree:add(f.msg, tvb(0, 1), "discovery")
		return "discovery: " .. dissect_tlvs(tvb, pinfo, tree)
	elseif magic == 0x4c then
		tree:add(f.msg, tvb(0, 1), "link state")
		return dissect_ls(tvb, pinfo, tree)
	end
	tree:add(f.msg, tvb(0, 1), string.format("unknown (0x%02x)", magic))
	return "control"
end

local function dissect_coll(tvb, pinfo, tree)
	if tvb:len() < 24 then
		tree:add_proto_expert_info(e_short)
		return "collective (truncated)"
	end
	tree:add(f.coll_phase, tvb(0, 1))
	tree:add(f.coll_kind, tvb(1, 1))
	tree:add(f.coll_type, tvb(2, 1))
	tree:add(f.coll_op, tvb(3, 1))
	tree:add(f.coll_flags, tvb(4, 1))
	local group = tree:add(f.coll_group, tvb(6, 2))
	group:add(f.coll_group_list, tvb(6, 2))
	group:add(f.coll_group_id, tvb(6, 2))
	tree:add(f.coll_seq, tvb(8, 4))
	tree:add(f.coll_count, tvb(12, 4))
	tree:add(f.coll_first, tvb(16, 4))
	tree:add(f.coll_n, tvb(20, 4))
	-- plain elements are 8 bytes each; exact float sums are not
	local n = tvb(20, 4):uint()
	if tvb:len() == 24 + 8 * n then
		for i = 0, n - 1 do
			tree:add(f.coll_value, tvb(24 + 8 * i, 8))
		end
	end
	return string.format("%s %s seq %d", coll_kinds[tvb(1, 1):uint()] or "?",
		coll_phases[tvb(0, 1):uint()] or "?", tvb(8, 4):uint())
end

function torus.dissector(tvb, pinfo, tree)
	if tvb:len() < HDR_LEN then
		local t = tree:add(torus, tvb())
		t:add_proto_expert_info(e_short)
		return
	end
	pinfo.cols.protocol = "TORUS"
	-- one item: a data frame's packet is the IP dissector's
	local ftype = tvb(1, 1):uint()
	local t = tree:add(torus, ftype == 1 and tvb(0, HDR_LEN) or tvb())
	t:add(f.version, tvb(0, 1))
	t:add(f.type, tvb(1, 1))
	t:add(f.hop_limit, tvb(2, 1))
	local fl = t:add(f.flags, tvb(3, 1))
	fl:add(f.flag_via, tvb(3, 1))
	fl:add(f.flag_detour, tvb(3, 1))
	fl:add(f.flag_plan1, tvb(3, 1))
	t:add(f.proto, tvb(4, 2))
	local vc = t:add(f.vc, tvb(6, 1))
	vc:add(f.vc_plan, tvb(6, 1))
	vc:add(f.vc_round, tvb(6, 1))
	vc:add(f.vc_dateline, tvb(6, 1))
	t:add(f.traversed, tvb(7, 1))
	local dst = add_coord(t, tvb, 8, "dst")
	local src = add_coord(t, tvb, 16, "src")
	if bit.band(tvb(3, 1):uint(), 1) == 1 then
		add_coord(t, tvb, 24, "via")
	end
	local payload = tvb:len() > HDR_LEN and tvb(HDR_LEN):tvb() or
		ByteArray.new():tvb("empty")
	if ftype == 1 then
		t:append_text(string.format(", data %s -> %s", src, dst))
		-- the IP packet, by its own ethertype: ip, ipv6
		if not ethertype:try(tvb(4, 2):uint(), payload, pinfo, tree) then
			data_dis:call(payload, pinfo, tree)
		end
	elseif ftype == 2 then
		local info = dissect_ctrl(payload, pinfo, t)
		t:append_text(", control: " .. info)
		pinfo.cols.info = "torus " .. info
	elseif ftype == 3 then
		local info = dissect_coll(payload, pinfo, t)
		t:append_text(", " .. info)
		pinfo.cols.info = string.format("torus collective %s, %s -> %s", info,
			src, dst)
	else
		data_dis:call(payload, pinfo, tree)
	end
end

ethertype:add(0x88B5, torus)
