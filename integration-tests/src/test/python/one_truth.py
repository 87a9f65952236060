#!/usr/bin/env python3
"""Reads every VR of a running vrouter server over REST, SNMP, NETCONF and RESTCONF (JSON and XML) and
compares every column of every table of NEW-VMM-MIB, value by value.

Usage: one_truth.py --rest-port N --snmp-port N --netconf-port N --yang DIR

The tables and their columns are the YANG module's lists and leaves (the module is NEW-VMM-MIB as
smidump translated it: each leaf has the OID of its MIB column), so a column added to the model is
compared without a change here. Each protocol's values are read with its own client (the JDK-free
urllib for REST and RESTCONF, net-snmp's snmpbulkwalk, ncclient over SSH) and converted only where the encodings
must differ: SNMP's integers to the enumeration's labels (from the YANG enums, which carry the MIB's
values), TruthValue 1/2 to true/false, octets to text (UTF-8, MAC addresses as colon hex, InetAddress
as an address, the UUID as a UUID), IPv6 addresses to their canonical text; RESTCONF's JSON (RFC 7951)
and XML, like NETCONF's, give enumerations as labels and so need none. Nothing else: a value
that differs in any other way is a difference.

Prints one JSON object on its last line: the number of values compared per table, and every
difference (table, row, column, and the five values).
"""
import argparse
import base64
import ipaddress
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default makes every rpc slow

from lxml import etree
from ncclient import manager
from pyang import context, repository

VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
SMIV2 = "ietf-yang-smiv2"
# Columns whose SNMP syntax is octets with a text form of their own (the YANG module says string).
INET = {"vmRouterAddr", "vmNetworkConfigAddress"}
UUIDS = {"vmUUID"}
# Samples the host reports anew at each read (ADR 0007): they move between the five reads, which are
# made in this order, so each must be at least the one read before it and at most what the time between
# the first read and the last can add (per second: timeticks are hundredths, CPU times microseconds of
# each virtual CPU); traffic and I/O counters only never go back.
SAMPLES = {"vmUpTime": 100, "vmCpuTime": 1_000_000 * 64, "vmCpuCoreTime": 1_000_000,
           "vmNetworkInOctets": None, "vmNetworkInPkts": None, "vmNetworkOutOctets": None, "vmNetworkOutPkts": None,
           "vmNetworkInErrors": None, "vmNetworkOutErrors": None, "vmNetworkInDiscards": None,
           "vmNetworkOutDiscards": None,
           "vmStorageReadIOs": None, "vmStorageWriteIOs": None, "vmStorageReadOctets": None,
           "vmStorageWriteOctets": None, "vmStorageReadLatency": None, "vmStorageWriteLatency": None}


class Column:
    def __init__(self, name, oid, kind, enum):
        self.name, self.oid, self.kind, self.enum = name, oid, kind, enum


class Table:
    """A YANG list: the container's name (the MIB table), its keys and its columns."""

    def __init__(self, name, entry, keys, columns):
        self.name, self.entry, self.keys, self.columns = name, entry, keys, columns


def resolve_type(leaf):
    """The leaf's type, followed through typedefs: (kind, {value: label} for enumerations)."""
    t = leaf.search_one("type")
    names = []
    while t is not None:
        names.append(t.arg)
        if t.arg == "enumeration":
            return "enum", {int(e.search_one("value").arg): e.arg for e in t.search("enum")}
        if t.arg == "boolean":
            return "boolean", None
        if t.arg == "leafref":
            return "key", None
        typedef = getattr(t, "i_typedef", None)
        if typedef is None:
            break
        t = typedef.search_one("type")
    if "MacAddress" in names:
        return "mac", None
    if leaf.arg in INET:
        return "inet", None
    if leaf.arg in UUIDS:
        return "uuid", None
    if any(n in ("string", "DisplayString") for n in names):
        return "text", None
    return "number", None


def load_tables(yang_dir):
    repo = repository.FileRepository(yang_dir, use_env=False)
    ctx = context.Context(repo)
    path = next(os.path.join(yang_dir, f) for f in os.listdir(yang_dir) if f.startswith("NEW-VMM-MIB"))
    with open(path) as f:
        module = ctx.add_module(path, f.read())
    ctx.validate()
    tables = []
    top = next(c for c in module.i_children if c.keyword == "container")
    for container in top.i_children:
        lists = [c for c in container.i_children if c.keyword == "list"]
        if not lists:
            continue  # the scalars' groups
        entry = lists[0]
        keys = entry.search_one("key").arg.split()
        columns = []
        for leaf in entry.i_children:
            oid = leaf.search_one((SMIV2, "oid"))
            kind, enum = resolve_type(leaf)
            columns.append(Column(leaf.arg, oid.arg if oid else None, kind, enum))
        tables.append(Table(container.arg, entry.arg, keys, columns))
    return tables


# ---------------------------------------------------------------- normal forms

def canonical(col, value):
    """A value as text, in the one form all five reads must agree on (None: absent)."""
    if value is None:
        return None
    if col.kind == "boolean":
        return "true" if value in (True, "true") else "false" if value in (False, "false") else repr(value)
    if col.kind == "inet" and value:
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            return value
    if col.kind == "mac":
        return value.lower()
    if isinstance(value, bool):
        return repr(value)
    return str(value)


# ---------------------------------------------------------------- REST

def http_get(args, path, accept):
    auth = base64.b64encode(("%s:%s" % (args.user, args.password)).encode()).decode()
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (args.rest_port, path),
                                 headers={"Authorization": "Basic " + auth, "Accept": accept})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def rest_rows(args, tables):
    vrs = json.loads(http_get(args, "/api/v1/routers", "application/json"))["virtualRouter"]
    out = {}
    for t in tables:
        rows = {}
        for vr in vrs:
            # Where each table's rows are in a VR's representation.
            if t.name == "vmConfigTable":
                entries = [vr]
            elif t.name == "vmTable":
                entries = [vr.get("vmEntry") or {}]
            elif t.name == "vmCpuAffinityTable":
                # Only a vCPU pinned to a physical CPU (vmCpuPhysIndex 1 and up) has an affinity row.
                entries = [c for c in vr.get("vmCpuTable") or [] if (c.get("vmCpuPhysIndex") or 0) >= 1]
            else:
                entries = vr.get(t.name) or []
            for e in entries:
                e = dict(e, vmIndex=vr["vmIndex"], vmStorageVmIndex=vr["vmIndex"])
                key = tuple(str(e.get(k)) for k in t.keys)
                rows[key] = {c.name: canonical(c, e.get(c.name)) for c in t.columns}
        out[t.name] = rows
    return out


# ---------------------------------------------------------------- SNMP

def snmp_rows(args, tables):
    """snmpbulkwalk of the whole MIB: numeric OIDs (-On), octets always as hex (-Ox), raw timeticks (-Ot)."""
    walk = subprocess.run(["snmpbulkwalk", "-v2c", "-c", args.community, "-On", "-Ox", "-Ot", "-t", "8", "-r", "0",
                           "127.0.0.1:%d" % args.snmp_port, "1.3.6.1.3.7666.1"],
                          capture_output=True, text=True, timeout=120)
    if walk.returncode != 0:
        raise SystemExit("snmpbulkwalk failed: " + walk.stderr)
    values = {}
    last = None
    for line in walk.stdout.splitlines():
        if line.startswith("."):
            oid, _, value = line.partition(" = ")
            last = oid[1:]
            values[last] = value
        elif last is not None:  # a long Hex-STRING goes on on the next lines
            values[last] += " " + line
    by_oid = {}
    for t in tables:
        for c in t.columns:
            if c.oid:
                by_oid[c.oid] = (t, c)
    out = {t.name: {} for t in tables}
    unknown = []
    for oid, value in values.items():
        parts = oid.split(".")
        # A column instance: the column's OID, then the row's index (one component per key here).
        for cut in range(len(parts) - 1, 0, -1):
            found = by_oid.get(".".join(parts[:cut]))
            if found:
                break
        else:
            continue  # a scalar (x.0)
        t, c = found
        index = parts[cut:]
        if len(index) != len(t.keys):
            unknown.append(oid)
            continue
        row = out[t.name].setdefault(tuple(index), {k: v for k, v in zip(t.keys, index)})
        row[c.name] = canonical(c, snmp_value(c, value))
    # The columns of the MIB that the YANG module lacks, besides SNMP's own (the RowStatus columns, the
    # moves of vmMigrationTable, the drain of vmDrain): none may be left over.
    module_columns = {".".join(oid.split(".")[:-1]) for oid in by_oid}
    for oid in values:
        column = ".".join(oid.split(".")[:11])
        if oid.startswith("1.3.6.1.3.7666.1.12.1.7.") or oid.startswith("1.3.6.1.3.7666.1.13.1.7."):
            continue  # vmConfigRowStatus, vmNetworkConfigRowStatus
        if oid.startswith("1.3.6.1.3.7666.1.21."):
            continue  # vmMigrationTable: an operation, vrouter-migration's migrate in YANG (docs/adr/0023, decision 10)
        if oid.startswith("1.3.6.1.3.7666.1.22."):
            continue  # vmDrain: an operation, vrouter-migration's drain and open in YANG (docs/adr/0023, decision 16)
        if column not in by_oid and not oid.endswith(".0") and not any(oid.startswith(c + ".") for c in by_oid):
            unknown.append(oid)
    return out, unknown


def snmp_value(col, value):
    typ, _, text = value.partition(": ")
    if value == '""':
        typ, text = "Hex-STRING", ""
    elif not text:
        typ, text = "Timeticks", value.strip()  # -Ot prints timeticks bare
    text = text.strip()
    if typ == "Hex-STRING":
        octets = bytes.fromhex(text.replace(" ", ""))
        if col.kind == "mac":
            return ":".join("%02x" % b for b in octets)
        if col.kind == "inet":
            return str(ipaddress.ip_address(octets)) if octets else ""
        if col.kind == "uuid":
            return str(uuid.UUID(bytes=octets)) if octets else ""
        return octets.decode("utf-8")
    if col.kind == "enum":
        return col.enum.get(int(text), "?%s" % text)
    if col.kind == "boolean":
        return {"1": "true", "2": "false"}.get(text, "?%s" % text)
    return text


# ---------------------------------------------------------------- NETCONF

def netconf_rows(args, tables):
    with manager.connect(host="127.0.0.1", port=args.netconf_port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        reply = m.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"/>' % VMM))
    return xml_rows(etree.fromstring(reply.data_xml.encode()), tables)


def xml_rows(root, tables):
    """The rows of every table in an XML document holding NEW-VMM-MIB (NETCONF's data, RESTCONF's resource)."""
    ns = {"v": VMM}
    out = {}
    for t in tables:
        rows = {}
        for e in root.iterfind(".//v:%s/v:%s" % (t.name, t.entry), ns):
            leaves = {etree.QName(c).localname: c.text if c.text is not None else "" for c in e}
            key = tuple(leaves.get(k) for k in t.keys)
            rows[key] = {c.name: canonical(c, leaves.get(c.name)) for c in t.columns}
        out[t.name] = rows
    return out


# ---------------------------------------------------------------- RESTCONF

RESTCONF_TREE = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB"


def restconf_json_rows(args, tables):
    """GET of the module's tree (configuration and state) on the REST port, in yang-data+json (RFC 7951)."""
    data = json.loads(http_get(args, RESTCONF_TREE, "application/yang-data+json"))["NEW-VMM-MIB:NEW-VMM-MIB"]
    out = {}
    for t in tables:
        rows = {}
        for e in (data.get(t.name) or {}).get(t.entry, []):
            key = tuple(str(e.get(k)) for k in t.keys)
            rows[key] = {c.name: canonical(c, e.get(c.name)) for c in t.columns}
        out[t.name] = rows
    return out


def restconf_xml_rows(args, tables):
    """The same GET in yang-data+xml."""
    return xml_rows(etree.fromstring(http_get(args, RESTCONF_TREE, "application/yang-data+xml")), tables)


# ---------------------------------------------------------------- comparison

READERS = ("rest", "snmp", "netconf", "restconf-json", "restconf-xml")  # in the order they read

def same(col, got, elapsed):
    """got: the values of READERS."""
    if len(set(got)) == 1:
        return True
    # SNMP has no absent value for a column of a row that exists: it shows absent text as empty.
    snmp = READERS.index("snmp")
    others_absent = all(g is None for i, g in enumerate(got) if i != snmp)
    if col.kind in ("text", "inet", "uuid") and got[snmp] == "" and others_absent:
        return True
    # Nor an address type or prefix length for an interface without an address: RFC 4001's unknown(0)
    # and 0 (either written back is no address, no prefix).
    if others_absent and (col.name, got[snmp]) in (("vmNetworkConfigAddressType", "unknown"),
                                                   ("vmNetworkConfigPrefixLength", "0")):
        return True
    # Nor a link type for an interface on a bridge, which is what its absence means (ADR 0018), nor a
    # link's delay or loss where nothing is measured: the MIB's 0 for both.
    if others_absent and (col.name, got[snmp]) in (("vmNetworkConfigLinkType", "bridge"),
                                                   ("vmNetworkLinkDelay", "0"), ("vmNetworkLinkLoss", "0")):
        return True
    if col.name in SAMPLES and None not in got and all(g.isdigit() for g in got):
        read = [int(g) for g in got]
        rate = SAMPLES[col.name]
        return read == sorted(read) and (rate is None or read[-1] - read[0] <= rate * (elapsed + 1))
    return False


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rest-port", type=int, required=True)
    p.add_argument("--snmp-port", type=int, required=True)
    p.add_argument("--netconf-port", type=int, required=True)
    p.add_argument("--yang", required=True)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--community", default="public")
    args = p.parse_args()

    tables = load_tables(args.yang)
    started = time.monotonic()
    rest = rest_rows(args, tables)
    snmp, snmp_unknown = snmp_rows(args, tables)
    netconf = netconf_rows(args, tables)
    restconf_json = restconf_json_rows(args, tables)
    restconf_xml = restconf_xml_rows(args, tables)
    elapsed = time.monotonic() - started
    differences = []
    compared = {}
    for t in tables:
        sources = (rest, snmp, netconf, restconf_json, restconf_xml)
        keys = sorted(set().union(*(source[t.name] for source in sources)))
        compared[t.name] = 0
        for key in keys:
            rows = [source[t.name].get(key) for source in sources]
            for c in t.columns:
                got = [None if r is None else r.get(c.name) for r in rows]
                if None in rows:
                    got = ["<no row>" if r is None else g for r, g in zip(rows, got)]
                compared[t.name] += 1
                if not same(c, got, elapsed):
                    differences.append(dict({"table": t.name, "row": ".".join(key), "column": c.name},
                                            **dict(zip(READERS, got))))
    print(json.dumps({"tables": {t.name: sorted(".".join(k) for k in rest[t.name]) for t in tables},
                      "compared": compared, "differences": differences, "snmpOnly": snmp_unknown}))


if __name__ == "__main__":
    sys.exit(main())
