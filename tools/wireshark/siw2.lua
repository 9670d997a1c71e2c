-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- siw2.lua: a Wireshark/tshark dissector for iWARP as siw2 speaks it:
-- MPA Request/Reply frames (RFC 5044, RFC 6581 enhanced data, siw2's
-- capability bits in Res), FPDUs with their CRC32c checked, DDP tagged and
-- untagged headers (RFC 5041) and every RDMAP message siw2 sends or
-- accepts: RFC 5040's, RFC 7306's atomics and Immediate Data, RDMAP
-- version 2's RDMA Read V2 and Send with Immediate Data variants, and RDMA
-- Commit with siw2's log update.  Wireshark 4.0 knows opcodes 0x0-0x7
-- and the RFC 7306 atomics only.  Runs on Wireshark 4.0 (Lua 5.2) and 4.4
-- (Lua 5.4), which loads no Lua script for root: run tshark as a user.
--
--   tshark -X lua_script:tools/wireshark/siw2.lua --disable-protocol iwarp_mpa -r cap.pcap
--
-- (or copy it to ~/.local/lib/wireshark/plugins/).  The built-in iwarp_mpa
-- heuristic would claim the same connections first: disable it.  A
-- connection is recognised by its MPA Request or Reply; a capture that
-- starts after them shows plain TCP.  Markers are not decoded (siw2 never
-- negotiates them).  Each FPDU is one siw2 item; a TCP segment may hold
-- several and an FPDU may span segments (TCP reassembly, on by default).

local siw2 = Proto("siw2", "siw2 iWARP (MPA/DDP/RDMAP)")

-- Bit operations: Lua 5.2's bit32 (Wireshark 4.0, Debian 12), else the
-- BitOp library every Wireshark carries (4.4 runs Lua 5.4, which has no
-- bit32), whose signed 32-bit results are made unsigned as bit32's are.
local bit32 = bit32 or (function()
	local function u(x) return x % 0x100000000 end
	return {
		band = function(...) return u(bit.band(...)) end,
		bxor = function(...) return u(bit.bxor(...)) end,
		rshift = function(x, n) return u(bit.rshift(x, n)) end,
		bnot = function(x) return u(bit.bnot(x)) end,
	}
end)()

local MPA_KEY_REQ = "MPA ID Req Frame"
local MPA_KEY_REP = "MPA ID Rep Frame"

local opcodes = {
	[0x0] = "RDMA Write",
	[0x1] = "RDMA Read Request",
	[0x2] = "RDMA Read Response",
	[0x3] = "Send",
	[0x4] = "Send with Invalidate",
	[0x5] = "Send with Solicited Event",
	[0x6] = "Send with Solicited Event and Invalidate",
	[0x7] = "Terminate",
	[0x8] = "Immediate Data",
	[0x9] = "Immediate Data with Solicited Event",
	[0xa] = "Atomic Request",
	[0xb] = "Atomic Response",
	[0xc] = "RDMA Commit Request",
	[0xd] = "RDMA Commit Response",
	[0x11] = "RDMA Read V2 Request",
	[0x12] = "RDMA Read V2 Response",
	[0x13] = "Send with Immediate Data",
	[0x14] = "Send with Invalidate and Immediate Data",
	[0x15] = "Send with Solicited Event and Immediate Data",
	[0x16] = "Send with Solicited Event, Invalidate and Immediate Data",
}
local aopcodes = { [0] = "FetchAdd", [1] = "Swap", [2] = "CmpSwap" }
local commit_status = {
	[0] = "Success", [1] = "Not made durable (media)",
	[2] = "Beyond the Responder's limits", [3] = "Transient, retry",
}
local term_layers = { [0] = "RDMAP", [1] = "DDP", [2] = "LLP (MPA)" }
local qns = { [0] = "Send", [1] = "Inbound request", [2] = "Terminate", [3] = "Response" }

local f = siw2.fields
-- MPA frames
f.key = ProtoField.string("siw2.mpa.key", "Key")
f.flags = ProtoField.uint8("siw2.mpa.flags", "Flags", base.HEX)
f.f_m = ProtoField.bool("siw2.mpa.markers", "Markers", 8, nil, 0x80)
f.f_c = ProtoField.bool("siw2.mpa.crc", "CRC", 8, nil, 0x40)
f.f_r = ProtoField.bool("siw2.mpa.reject", "Reject", 8, nil, 0x20)
f.f_s = ProtoField.bool("siw2.mpa.enhanced", "Enhanced data (S)", 8, nil, 0x10)
f.f_v2 = ProtoField.bool("siw2.mpa.cap.rdmap_v2", "siw2 capability: RDMAP version 2", 8, nil, 0x04)
f.f_commit = ProtoField.bool("siw2.mpa.cap.commit", "siw2 capability: RDMA Commit", 8, nil, 0x02)
f.f_ack = ProtoField.bool("siw2.mpa.cap.ack", "siw2 capability: understood (Reply)", 8, nil, 0x01)
f.rev = ProtoField.uint8("siw2.mpa.rev", "Revision")
f.pd_len = ProtoField.uint16("siw2.mpa.pd_len", "Private Data Length")
f.ird = ProtoField.uint16("siw2.mpa.ird", "IRD", base.DEC, nil, 0x3fff)
f.ird_a = ProtoField.bool("siw2.mpa.p2p", "Peer-to-peer (A)", 16, nil, 0x8000)
f.ird_b = ProtoField.bool("siw2.mpa.rtr_fpdu", "Zero-length FPDU RTR (B)", 16, nil, 0x4000)
f.ord = ProtoField.uint16("siw2.mpa.ord", "ORD", base.DEC, nil, 0x3fff)
f.ord_c = ProtoField.bool("siw2.mpa.rtr_write", "Zero-length Write RTR (C)", 16, nil, 0x8000)
f.ord_d = ProtoField.bool("siw2.mpa.rtr_read", "Zero-length Read RTR (D)", 16, nil, 0x4000)
f.pd = ProtoField.bytes("siw2.mpa.pd", "Private Data")
-- FPDU framing
f.ulpdu_len = ProtoField.uint16("siw2.ulpdu_len", "ULPDU Length")
f.pad = ProtoField.bytes("siw2.pad", "Pad")
f.crc = ProtoField.uint32("siw2.crc", "CRC32c", base.HEX)
f.crc_good = ProtoField.bool("siw2.crc.good", "CRC good")
-- DDP and RDMAP control
f.ctrl = ProtoField.uint16("siw2.ctrl", "Control", base.HEX)
f.t = ProtoField.bool("siw2.ddp.tagged", "Tagged", 16, nil, 0x8000)
f.l = ProtoField.bool("siw2.ddp.last", "Last", 16, nil, 0x4000)
f.ddp_rsvd = ProtoField.uint16("siw2.ddp.rsvd", "DDP reserved", base.HEX, nil, 0x3c00)
f.dv = ProtoField.uint16("siw2.ddp.dv", "DDP version", base.DEC, nil, 0x0300)
f.rv = ProtoField.uint16("siw2.rdmap.rv", "RDMAP version", base.DEC, nil, 0x00c0)
f.opcode = ProtoField.uint8("siw2.rdmap.opcode", "Opcode", base.HEX, opcodes)
f.stag = ProtoField.uint32("siw2.ddp.stag", "STag", base.HEX)
f.to = ProtoField.uint64("siw2.ddp.to", "Tagged Offset", base.HEX)
f.rsvdulp = ProtoField.uint32("siw2.ddp.rsvdulp", "Reserved for ULP", base.HEX)
f.inv_stag = ProtoField.uint32("siw2.rdmap.inv_stag", "Invalidate STag", base.HEX)
f.qn = ProtoField.uint32("siw2.ddp.qn", "Queue Number", base.DEC, qns)
f.msn = ProtoField.uint32("siw2.ddp.msn", "Message Sequence Number")
f.mo = ProtoField.uint32("siw2.ddp.mo", "Message Offset")
f.payload = ProtoField.bytes("siw2.payload", "Payload")
-- RDMAP headers
f.sink_stag = ProtoField.uint32("siw2.rdmap.sink_stag", "Data Sink STag", base.HEX)
f.sink_to = ProtoField.uint64("siw2.rdmap.sink_to", "Data Sink Tagged Offset", base.HEX)
f.read_size = ProtoField.uint32("siw2.rdmap.read_size", "RDMA Read Message Size")
f.src_stag = ProtoField.uint32("siw2.rdmap.src_stag", "Data Source STag", base.HEX)
f.src_to = ProtoField.uint64("siw2.rdmap.src_to", "Data Source Tagged Offset", base.HEX)
f.aop = ProtoField.uint32("siw2.rdmap.atomic.op", "Atomic Operation", base.DEC, aopcodes, 0xf)
f.req_id = ProtoField.uint32("siw2.rdmap.req_id", "Request Identifier")
f.add_swap = ProtoField.uint64("siw2.rdmap.atomic.add_swap", "Add or Swap Data", base.HEX)
f.add_swap_mask = ProtoField.uint64("siw2.rdmap.atomic.add_swap_mask", "Add or Swap Mask", base.HEX)
f.cmp = ProtoField.uint64("siw2.rdmap.atomic.cmp", "Compare Data", base.HEX)
f.cmp_mask = ProtoField.uint64("siw2.rdmap.atomic.cmp_mask", "Compare Mask", base.HEX)
f.orig_req_id = ProtoField.uint32("siw2.rdmap.orig_req_id", "Original Request Identifier")
f.orig_value = ProtoField.uint64("siw2.rdmap.atomic.orig_value", "Original Remote Data", base.HEX)
f.imm = ProtoField.uint64("siw2.rdmap.imm", "Immediate Data", base.HEX)
f.sink_len = ProtoField.uint32("siw2.rdmap.commit.len", "Commit Length")
f.log_type = ProtoField.uint16("siw2.rdmap.commit.log.type", "Extension type", base.HEX)
f.log_stag = ProtoField.uint32("siw2.rdmap.commit.log.stag", "Log STag", base.HEX)
f.log_to = ProtoField.uint64("siw2.rdmap.commit.log.to", "Log Tagged Offset", base.HEX)
f.log_value = ProtoField.bytes("siw2.rdmap.commit.log.value", "Log value")
f.ext = ProtoField.bytes("siw2.rdmap.commit.ext", "Extension octets")
f.status = ProtoField.uint32("siw2.rdmap.commit.status", "Status", base.DEC, commit_status)
f.term_layer = ProtoField.uint32("siw2.term.layer", "Layer", base.DEC, term_layers, 0xf0000000)
f.term_etype = ProtoField.uint32("siw2.term.etype", "Error Type", base.HEX, nil, 0x0f000000)
f.term_ecode = ProtoField.uint32("siw2.term.ecode", "Error Code", base.HEX, nil, 0x00ff0000)
f.term_m = ProtoField.bool("siw2.term.m", "Segment Length valid (M)", 32, nil, 0x8000)
f.term_d = ProtoField.bool("siw2.term.d", "DDP header included (D)", 32, nil, 0x4000)
f.term_r = ProtoField.bool("siw2.term.r", "RDMAP header included (R)", 32, nil, 0x2000)
f.term_seglen = ProtoField.uint16("siw2.term.seglen", "DDP Segment Length")
f.term_hdrs = ProtoField.bytes("siw2.term.hdrs", "Terminated headers")

local e_crc = ProtoExpert.new("siw2.crc.bad", "CRC32c mismatch", expert.group.CHECKSUM, expert.severity.ERROR)
local e_short = ProtoExpert.new("siw2.short", "Header longer than the ULPDU", expert.group.MALFORMED, expert.severity.ERROR)
local e_op = ProtoExpert.new("siw2.opcode.unknown", "Opcode not defined", expert.group.PROTOCOL, expert.severity.WARN)
local e_rsvd = ProtoExpert.new("siw2.rsvd", "Reserved bits set or versions unexpected", expert.group.PROTOCOL, expert.severity.WARN)
siw2.experts = { e_crc, e_short, e_op, e_rsvd }

-- CRC-32C (Castagnoli, reflected 0x82F63B78), as MPA computes it.
local crc_tbl = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) ~= 0 then
			c = bit32.bxor(bit32.rshift(c, 1), 0x82F63B78)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_tbl[i] = c
end
local function crc32c(bytes, from, len)
	local c = 0xFFFFFFFF
	for i = from, from + len - 1 do
		c = bit32.bxor(crc_tbl[bit32.band(bit32.bxor(c, bytes:get_index(i)), 0xff)],
			       bit32.rshift(c, 8))
	end
	return bit32.bnot(c)
end

-- Per TCP stream: whether CRC is in use (the Reply's C flag); per frame,
-- what it was when the frame was first seen (a second pass must agree).
local f_stream = Field.new("tcp.stream")
local streams = {}
local frame_crc = {}

local function stream_state(pinfo)
	local s = f_stream()
	local key = s and s.value or -1
	if not streams[key] then
		streams[key] = { crc = true }
	end
	return streams[key]
end

-- The fixed RDMAP headers after the untagged DDP header, by opcode: each
-- field in order with its length (RFC 5040 5.2.1, RFC 7306 5.2, 6.2;
-- RDMAP v2's Read V2 Request; the Commit Request's region, before its tail).
local read_v2 = { { f.read_size, 4 }, { f.src_stag, 4 }, { f.src_to, 8 } }
local imm = { { f.imm, 8 } }
local fixed_hdrs = {
	[0x1] = { { f.sink_stag, 4 }, { f.sink_to, 8 }, read_v2[1], read_v2[2], read_v2[3] },
	[0x11] = read_v2,
	[0xa] = { { f.aop, 4 }, { f.req_id, 4 }, { f.stag, 4 }, { f.to, 8 },
		  { f.add_swap, 8 }, { f.add_swap_mask, 8 }, { f.cmp, 8 }, { f.cmp_mask, 8 } },
	[0xb] = { { f.orig_req_id, 4 }, { f.orig_value, 8 } },
	[0x8] = imm,
	[0x9] = imm,
	[0xc] = { { f.req_id, 4 }, { f.stag, 4 }, { f.sink_len, 4 }, { f.to, 8 } },
	[0xd] = { { f.orig_req_id, 4 }, { f.status, 4 } },
}

-- The RDMAP header of @op at @o, @avail octets left in the ULPDU; returns
-- the octets it took.
local function rdmap_header(op, tree, tvb, o, avail)
	local function need(n)
		if avail < n then
			tree:add_proto_expert_info(e_short)
			return false
		end
		return true
	end
	local hdr = fixed_hdrs[op]
	local n = 0
	if hdr then
		for _, fl in ipairs(hdr) do
			n = n + fl[2]
		end
		if not need(n) then return avail end
		local at = o
		for _, fl in ipairs(hdr) do
			tree:add(fl[1], tvb(at, fl[2]))
			at = at + fl[2]
		end
	end
	if op == 0xc then
		-- siw2's log update, or octets no header siw2 knows.
		local rest = avail - 20
		if rest >= 24 and tvb(o + 20, 2):uint() == 0x8001 then
			local lt = tree:add(siw2, tvb(o + 20, 24), "siw2 log update")
			lt:add(f.log_type, tvb(o + 20, 2))
			lt:add(f.log_stag, tvb(o + 24, 4))
			lt:add(f.log_to, tvb(o + 28, 8))
			lt:add(f.log_value, tvb(o + 36, 8))
			if rest > 24 then
				tree:add(f.ext, tvb(o + 44, rest - 24))
			end
		elseif rest > 0 then
			tree:add(f.ext, tvb(o + 20, rest))
		end
		return avail
	elseif op == 0x7 then
		if not need(4) then return avail end
		local t = tvb(o, 4):uint()
		local tt = tree:add(siw2, tvb(o, 4), "Terminate control")
		tt:add(f.term_layer, tvb(o, 4))
		tt:add(f.term_etype, tvb(o, 4))
		tt:add(f.term_ecode, tvb(o, 4))
		tt:add(f.term_m, tvb(o, 4))
		tt:add(f.term_d, tvb(o, 4))
		tt:add(f.term_r, tvb(o, 4))
		local n = 4
		if bit32.band(t, 0xc000) ~= 0 and avail >= 6 then
			tree:add(f.term_seglen, tvb(o + 4, 2))
			n = 6
		end
		if avail > n then
			tree:add(f.term_hdrs, tvb(o + n, avail - n))
		end
		return avail
	end
	return n
end

-- One FPDU at @o of @tvb, @len octets in all (ULPDU_Length + ULPDU + PAD +
-- CRC); returns a one-line summary.
local function dissect_fpdu(tvb, pinfo, root, o, total, ulen, use_crc)
	local tree = root:add(siw2, tvb(o, total), "siw2 FPDU")
	tree:add(f.ulpdu_len, tvb(o, 2))
	local pad = total - 2 - ulen - 4
	local ctrl = tvb(o + 2, 2):uint()
	local ct = tree:add(f.ctrl, tvb(o + 2, 2))
	ct:add(f.t, tvb(o + 2, 2))
	ct:add(f.l, tvb(o + 2, 2))
	ct:add(f.ddp_rsvd, tvb(o + 2, 2))
	ct:add(f.dv, tvb(o + 2, 2))
	ct:add(f.rv, tvb(o + 2, 2))
	local rv = bit32.rshift(bit32.band(ctrl, 0xc0), 6)
	local op = bit32.band(ctrl, 0x1f)
	ct:add(f.opcode, tvb(o + 3, 1), op)
	if bit32.band(ctrl, 0x3c00) ~= 0 or bit32.band(ctrl, 0x0300) ~= 0x0100 or
	   (rv ~= 1 and rv ~= 2) or (rv == 1 and op >= 0x10) or bit32.band(ctrl, 0x20) ~= 0 then
		ct:add_proto_expert_info(e_rsvd)
	end
	if not opcodes[op] then
		ct:add_proto_expert_info(e_op)
	end
	local tagged = bit32.band(ctrl, 0x8000) ~= 0
	local last = bit32.band(ctrl, 0x4000) ~= 0
	local hdr = tagged and 14 or 18
	if ulen < hdr then
		tree:add_proto_expert_info(e_short)
		return "short FPDU"
	end
	local summary = (opcodes[op] or string.format("opcode 0x%x", op))
	if tagged then
		tree:add(f.stag, tvb(o + 4, 4))
		tree:add(f.to, tvb(o + 8, 8))
		summary = summary .. string.format(" STag 0x%x", tvb(o + 4, 4):uint())
	else
		if op == 0x4 or op == 0x6 or op == 0x14 or op == 0x16 then
			tree:add(f.inv_stag, tvb(o + 4, 4))
		else
			tree:add(f.rsvdulp, tvb(o + 4, 4))
		end
		tree:add(f.qn, tvb(o + 8, 4))
		tree:add(f.msn, tvb(o + 12, 4))
		tree:add(f.mo, tvb(o + 16, 4))
		summary = summary .. string.format(" QN %d MSN %d MO %d", tvb(o + 8, 4):uint(),
						   tvb(o + 12, 4):uint(), tvb(o + 16, 4):uint())
	end
	local po = o + 2 + hdr
	local avail = ulen - hdr
	if not tagged then
		local n = rdmap_header(op, tree, tvb, po, avail)
		po = po + n
		avail = avail - n
	end
	if avail > 0 then
		-- The last segment of a Send with Immediate Data is the 8 octets.
		if op >= 0x13 and op <= 0x16 and last and avail == 8 then
			tree:add(f.imm, tvb(po, 8))
		else
			tree:add(f.payload, tvb(po, avail))
		end
	end
	if pad > 0 then
		tree:add(f.pad, tvb(o + 2 + ulen, pad))
	end
	local crc_at = o + total - 4
	local got = tvb(crc_at, 4):le_uint()
	local ci = tree:add_le(f.crc, tvb(crc_at, 4))
	if use_crc then
		local want = crc32c(tvb:bytes(), o, total - 4)
		local good = (want == got)
		ci:add(f.crc_good, tvb(crc_at, 4), good):set_generated()
		if not good then
			ci:add_proto_expert_info(e_crc, string.format("CRC32c 0x%08x, want 0x%08x", got, want))
			summary = summary .. " [bad CRC]"
		end
	end
	return summary
end

-- An MPA Request or Reply at @o; returns its length and a summary.
local function dissect_mpa(tvb, pinfo, root, o, st)
	local pdl = tvb(o + 18, 2):uint()
	local total = 20 + pdl
	local isreq = tvb(o, 16):string() == MPA_KEY_REQ
	local tree = root:add(siw2, tvb(o, total), isreq and "MPA Request" or "MPA Reply")
	tree:add(f.key, tvb(o, 16))
	local fl = tvb(o + 16, 1):uint()
	local ft = tree:add(f.flags, tvb(o + 16, 1))
	for _, b in ipairs({ f.f_m, f.f_c, f.f_r, f.f_s, f.f_v2, f.f_commit, f.f_ack }) do
		ft:add(b, tvb(o + 16, 1))
	end
	local rev = tvb(o + 17, 1):uint()
	tree:add(f.rev, tvb(o + 17, 1))
	tree:add(f.pd_len, tvb(o + 18, 2))
	local pdo = o + 20
	if rev == 2 and bit32.band(fl, 0x10) ~= 0 and pdl >= 4 then
		local it = tree:add(f.ird, tvb(pdo, 2))
		it:add(f.ird_a, tvb(pdo, 2))
		it:add(f.ird_b, tvb(pdo, 2))
		local ot = tree:add(f.ord, tvb(pdo + 2, 2))
		ot:add(f.ord_c, tvb(pdo + 2, 2))
		ot:add(f.ord_d, tvb(pdo + 2, 2))
		pdo = pdo + 4
	end
	if o + total > pdo then
		tree:add(f.pd, tvb(pdo, o + total - pdo))
	end
	-- CRC is used if the Reply says so (RFC 5044: either side may ask).
	if not isreq and not pinfo.visited then
		st.crc = bit32.band(fl, 0x40) ~= 0
	end
	local s = (isreq and "MPA Request" or "MPA Reply") .. string.format(" Rev %d", rev)
	if bit32.band(fl, 0x20) ~= 0 then s = s .. " Reject" end
	if bit32.band(fl, 0x40) ~= 0 then s = s .. " CRC" end
	if rev == 2 and bit32.band(fl, 0x06) ~= 0 then
		s = s .. " caps" .. (bit32.band(fl, 0x04) ~= 0 and " v2" or "") ..
		    (bit32.band(fl, 0x02) ~= 0 and " commit" or "")
	end
	return total, s
end

local function is_mpa_key(tvb, o)
	if tvb:len() - o < 16 then
		return false
	end
	local k = tvb(o, 16):string()
	return k == MPA_KEY_REQ or k == MPA_KEY_REP
end

function siw2.dissector(tvb, pinfo, root)
	local st = stream_state(pinfo)
	local n = tvb:len()
	local o = 0
	local items = {}
	local use_crc = frame_crc[pinfo.number]
	if use_crc == nil then
		use_crc = st.crc
	end
	while o < n do
		local rest = n - o
		if is_mpa_key(tvb, o) then
			if rest < 20 or rest < 20 + tvb(o + 18, 2):uint() then
				pinfo.desegment_offset = o
				pinfo.desegment_len = rest < 20 and DESEGMENT_ONE_MORE_SEGMENT
						      or 20 + tvb(o + 18, 2):uint() - rest
				break
			end
			local len, s = dissect_mpa(tvb, pinfo, root, o, st)
			use_crc = st.crc
			items[#items + 1] = s
			o = o + len
		else
			if rest < 2 then
				pinfo.desegment_offset = o
				pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
				break
			end
			local ulen = tvb(o, 2):uint()
			local pad = (4 - (2 + ulen) % 4) % 4
			local total = 2 + ulen + pad + 4
			if rest < total then
				pinfo.desegment_offset = o
				pinfo.desegment_len = total - rest
				break
			end
			items[#items + 1] = dissect_fpdu(tvb, pinfo, root, o, total, ulen, use_crc)
			o = o + total
		end
	end
	if frame_crc[pinfo.number] == nil then
		frame_crc[pinfo.number] = use_crc
	end
	if #items > 0 then
		pinfo.cols.protocol = "siw2"
		pinfo.cols.info = table.concat(items, ", ")
	end
	-- Asking TCP for more is accepting the segment: 0 would reject it.
	return o < n and n or o
end

-- A TCP connection is ours from its MPA Request or Reply on.
local function heuristic(tvb, pinfo, root)
	if not is_mpa_key(tvb, 0) then
		return false
	end
	pinfo.conversation = siw2
	siw2.dissector(tvb, pinfo, root)
	return true
end
siw2:register_heuristic("tcp", heuristic)

function siw2.init()
	streams = {}
	frame_crc = {}
end
