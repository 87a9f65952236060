"""gNMI scenarios for GnmiIT, run with pygnmi (and, for what pygnmi cannot send, grpc with pygnmi's
gnmi.proto stubs) against a vrouter server. Each prints one JSON object as its last line."""
import argparse
import base64
import json
import queue
import sys
import threading
import time
import urllib.request

import grpc
from pygnmi.client import gNMIclient, gNMIException
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

DEADLINE = 30  # seconds for any one awaited message: the machine may be loaded


def client(args, password="admin"):
    """Plain gRPC, or TLS trusting the server's certificate given with --cert, presenting
    --client-cert and --client-key when given."""
    if args.client_cert:
        return gNMIclient(target=("127.0.0.1", args.port), username="admin", password=password, insecure=False,
                          path_cert=args.client_cert, path_key=args.client_key, path_root=args.cert)
    return gNMIclient(target=("127.0.0.1", args.port), username="admin", password=password,
                      insecure=args.cert is None, path_cert=args.cert)


def status_of(error):
    """The gRPC status code and details of a pygnmi or grpc error."""
    e = error.orig_exc if isinstance(error, gNMIException) and error.orig_exc is not None else error
    if isinstance(e, grpc.RpcError):
        return {"code": e.code().name, "details": e.details()}
    return {"code": "NONE", "details": str(error)}


def rest(args, method, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{args.rest_port}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", "Basic " + base64.b64encode(b"admin:admin").decode())
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null")


def reader(responses):
    """The responses of a stream, read on a thread of their own so that a wait can time out."""
    q = queue.Queue()

    def run():
        try:
            for r in responses:
                q.put(r)
        except Exception as e:  # the stream ended
            q.put(e)
    threading.Thread(target=run, daemon=True).start()
    return q


def await_response(q, what, test):
    end = time.monotonic() + DEADLINE
    seen = []
    while time.monotonic() < end:
        try:
            r = q.get(timeout=max(0.1, end - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(r, Exception):
            raise AssertionError(f"stream ended waiting for {what}: {r}; saw {seen}")
        seen.append(r)
        if test(r):
            return r, seen
    raise AssertionError(f"no {what} within {DEADLINE} s; saw {seen}")


def capabilities(args):
    try:
        with client(args) as gc:
            return gc.capabilities()
    except Exception as e:  # pygnmi raises on connect (a TLS handshake refused) or on the call
        return status_of(e)


def get(args):
    with client(args) as gc:
        try:
            return gc.get(path=[args.path], encoding=args.encoding, datatype=args.datatype)
        except gNMIException as e:
            return status_of(e)


def wrong_password(args):
    try:
        with client(args, password="wrong") as gc:
            gc.capabilities()
        return {"code": "OK"}
    except Exception as e:  # pygnmi raises on connect or on the call
        return status_of(e)


def once(args):
    with client(args) as gc:
        updates = []
        for r in gc.subscribe2(subscribe={"subscription": [{"path": args.path}], "mode": "once",
                                          "encoding": args.encoding}):
            if r.get("sync_response"):
                return {"updates": updates, "sync": True}
            updates.append(r["update"])
    return {"updates": updates, "sync": False}


def poll(args):
    """Two polls after the first values: each brings the values again, then sync_response."""
    stub, channel = raw(args)
    polls = queue.Queue()

    def requests():
        yield gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
            mode=gnmi_pb2.SubscriptionList.POLL, encoding=encoding(args.encoding),
            subscription=[gnmi_pb2.Subscription(path=path(args.path))]))
        while True:
            item = polls.get()
            if item is None:
                return
            yield gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll())

    q = reader(stub.Subscribe(requests(), metadata=META))
    rounds = []
    for i in range(3):
        if i > 0:
            polls.put(True)
        _, seen = await_response(q, f"sync_response of round {i}", lambda r: r.sync_response)
        rounds.append(sum(len(r.update.update) for r in seen))
    polls.put(None)
    channel.close()
    return {"rounds": rounds}


def on_change(args):
    """An ON_CHANGE subscriber sees a VR created over REST, then its removal as a delete."""
    with client(args) as gc:
        responses = gc.subscribe2(subscribe={
            "subscription": [{"path": "/NEW-VMM-MIB/vmTable/vmEntry/vmOperState", "mode": "on_change"}],
            "mode": "stream", "encoding": args.encoding})
        q = reader(responses)
        await_response(q, "sync_response", lambda r: r.get("sync_response"))
        vm = rest(args, "POST", "/api/v1/routers", {"vmName": "gnmi-watch"})["vmIndex"]
        key = f"vmEntry[vmIndex={vm}]"
        created, _ = await_response(q, f"an update of VR {vm}",
                                    lambda r: "update" in r and key in r["update"].get("prefix", "")
                                    and any(u["path"] == "vmOperState" for u in r["update"]["update"]))
        rest(args, "DELETE", f"/api/v1/routers/{vm}")
        deleted, _ = await_response(q, f"the delete of VR {vm}",
                                    lambda r: "update" in r and any(d.get("path") == key for d in r["update"].get("delete", [])))
        return {"vmIndex": vm, "created": created["update"], "deleted": deleted["update"]}


def oc_on_change(args):
    """ON_CHANGE on openconfig's oper-status of every interface: VR --vm stopped over REST goes DOWN, started UP."""
    with client(args) as gc:
        responses = gc.subscribe2(subscribe={
            "subscription": [{"path": "openconfig:/interfaces/interface[name=*]/state/oper-status", "mode": "on_change"}],
            "mode": "stream", "encoding": args.encoding})
        q = reader(responses)
        _, first = await_response(q, "sync_response", lambda r: r.get("sync_response"))
        seen = {"first": [r["update"] for r in first if "update" in r]}
        for action, status in (("stop", "DOWN"), ("start", "UP")):
            rest(args, "POST", f"/api/v1/routers/{args.vm}/{action}?wait=30s")
            changed, _ = await_response(q, f"oper-status {status}",
                                        lambda r: "update" in r and any(u.get("val") == status for u in r["update"].get("update", [])))
            seen[action] = changed["update"]
        return seen


def sample(args):
    """SAMPLE at the minimum interval: the same leaf twice, a sample interval apart."""
    with client(args) as gc:
        responses = gc.subscribe2(subscribe={
            "subscription": [{"path": args.path, "mode": "sample", "sample_interval": 1_000_000_000}],
            "mode": "stream", "encoding": args.encoding})
        q = reader(responses)
        await_response(q, "sync_response", lambda r: r.get("sync_response"))
        first, _ = await_response(q, "a sample", lambda r: "update" in r)
        second, _ = await_response(q, "a second sample", lambda r: "update" in r)
        return {"samples": [first["update"], second["update"]]}


# ---------------------------------------------------------------- raw gRPC, for bad requests

META = [("username", "admin"), ("password", "admin")]


def raw(args):
    channel = grpc.insecure_channel(f"127.0.0.1:{args.port}")
    return gnmi_pb2_grpc.gNMIStub(channel), channel


def encoding(name):
    return gnmi_pb2.Encoding.Value(name.upper())


def path(text):
    elems = []
    for part in [p for p in text.split("/") if p]:
        name, _, keys = part.partition("[")
        key = dict(kv.split("=", 1) for kv in keys.rstrip("]").split("][")) if keys else {}
        elems.append(gnmi_pb2.PathElem(name=name, key=key))
    return gnmi_pb2.Path(elem=elems)


def subscribe_status(args, requests):
    stub, channel = raw(args)
    try:
        for _ in stub.Subscribe(iter(requests), metadata=META, timeout=DEADLINE):
            pass
        return {"code": "OK"}
    except grpc.RpcError as e:
        return status_of(e)
    finally:
        channel.close()


def stream_list(sub_mode=gnmi_pb2.SAMPLE, interval=0, p="/NEW-VMM-MIB/vmObjects"):
    return gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.STREAM, encoding=gnmi_pb2.JSON_IETF,
        subscription=[gnmi_pb2.Subscription(path=path(p), mode=sub_mode, sample_interval=interval)]))


def bad_input(args):
    """Each bad request gets the status the specification names; the server answers a good one after them all."""
    stub, channel = raw(args)
    out = {}

    def get_status(name, request):
        try:
            stub.Get(request, metadata=META, timeout=DEADLINE)
            out[name] = {"code": "OK"}
        except grpc.RpcError as e:
            out[name] = status_of(e)

    get_status("malformedPath", gnmi_pb2.GetRequest(path=[gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="")])]))
    get_status("unknownOrigin", gnmi_pb2.GetRequest(path=[gnmi_pb2.Path(origin="ietf", elem=[gnmi_pb2.PathElem(name="interfaces")])]))
    get_status("unknownPath", gnmi_pb2.GetRequest(path=[path("/NEW-VMM-MIB/noSuchThing")]))
    get_status("unsupportedEncoding", gnmi_pb2.GetRequest(path=[path("/NEW-VMM-MIB/vmObjects")], encoding=gnmi_pb2.ASCII))
    out["sampleTooFast"] = subscribe_status(args, [stream_list(interval=1000)])
    out["secondList"] = subscribe_status(args, [stream_list(), stream_list()])
    out["pollWithoutPollMode"] = subscribe_status(args, [stream_list(), gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll())])
    out["subscribeEncoding"] = subscribe_status(args, [gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.ONCE, encoding=gnmi_pb2.BYTES,
        subscription=[gnmi_pb2.Subscription(path=path("/NEW-VMM-MIB"))]))])
    try:
        stub.Capabilities(gnmi_pb2.CapabilityRequest(), timeout=DEADLINE)
        out["noCredentials"] = {"code": "OK"}
    except grpc.RpcError as e:
        out["noCredentials"] = status_of(e)
    out["afterwards"] = len(stub.Get(gnmi_pb2.GetRequest(path=[path("/NEW-VMM-MIB/vmObjects/vmNumber")]),
                                     metadata=META, timeout=DEADLINE).notification)
    channel.close()
    return out


def stalled_reader(args):
    """A collector that subscribes to everything and stops reading: other calls are answered all the same."""
    stub, channel = raw(args)
    stalled = stub.Subscribe(iter([stream_list(p="/", interval=1_000_000_000)]), metadata=META)
    next(stalled)  # the stream is open; nothing more is read from it
    other, other_channel = raw(args)
    answers = 0
    for _ in range(5):
        answers += len(other.Get(gnmi_pb2.GetRequest(path=[path("/NEW-VMM-MIB/vmObjects/vmNumber")]),
                                 metadata=META, timeout=DEADLINE).notification)
        time.sleep(1)  # the stalled stream's samples pile up meanwhile (what is measured is the other client)
    other_channel.close()
    stalled.cancel()
    channel.close()
    return {"answers": answers}


SCENARIOS = {f.__name__.replace("_", "-"): f for f in
             [capabilities, get, wrong_password, once, poll, on_change, oc_on_change, sample, bad_input, stalled_reader]}

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=SCENARIOS)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--rest-port", type=int)
    p.add_argument("--path", default="/NEW-VMM-MIB/vmObjects")
    p.add_argument("--encoding", default="json")
    p.add_argument("--datatype", default="all")
    p.add_argument("--vm", type=int, default=1, help="the VR a scenario changes")
    p.add_argument("--cert", help="the server's certificate (PEM): talk TLS, trusting it")
    p.add_argument("--client-cert", help="a client certificate (PEM) to present, with --client-key")
    p.add_argument("--client-key")
    a = p.parse_args()
    print(json.dumps(SCENARIOS[a.scenario](a), default=str))
    sys.stdout.flush()
