"""
A long-lived UNO client for one LibreOffice listener (core/engines/execution/libreoffice-pool.ts starts
one per listener, with Debian's /usr/bin/python3, the interpreter that has python3-uno).

    /usr/bin/python3 uno-bridge.py <connect string> <start timeout in seconds> <soffice process group, or 0>

It connects to the listener (retrying while soffice starts), prints {"ready": true}, then reads
one JSON request per line on stdin and answers one JSON line on stdout, in order:

    {"id": 1, "op": "convert", "input": "/abs/in.docx", "output": "/abs/out.pdf",
     "inputFilter": "MS Word 2007 XML", "inputFilterOptions": "",
     "exportFilter": "writer_pdf_Export", "exportFilterOptions": ""}
      -> {"id": 1, "ok": true}
       | {"id": 1, "ok": false, "stage": "load" | "store", "error": "..."}
    {"id": 2, "op": "ping"} -> {"id": 2, "ok": true}

A lost connection to the listener is fatal: the bridge exits (code 3) and the pool replaces the
listener. Timeouts and kills are the pool's business. When stdin closes (the server exited, even
killed with SIGKILL) the bridge kills the listener's process group, so no soffice is orphaned.
"""
import json
import os
import queue
import signal
import sys
import threading
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException

# com.sun.star.document.MacroExecMode.NEVER_EXECUTE and UpdateDocMode.NO_UPDATE: an uploaded
# document never runs its macros nor fetches what it links to.
NEVER_EXECUTE = 0
NO_UPDATE = 0


def props(**values):
    result = []
    for name, value in values.items():
        prop = PropertyValue()
        prop.Name = name
        prop.Value = value
        result.append(prop)
    return tuple(result)


def connect(target, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + timeout
    while True:
        try:
            context = resolver.resolve(f"uno:{target};urp;StarOffice.ComponentContext")
            return context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def answer(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def describe(err):
    if isinstance(err, str):
        return err
    message = getattr(err, "Message", None) or str(err)
    return f"{type(err).__name__}: {message}".strip()


class BridgeLost(Exception):
    pass


def check_alive(desktop, err):
    """A failed call is the document's fault only while the listener still answers."""
    try:
        desktop.getCurrentComponent()
    except Exception:
        raise BridgeLost(describe(err))


def convert(desktop, request):
    load = {"Hidden": True, "ReadOnly": True, "MacroExecutionMode": NEVER_EXECUTE, "UpdateDocMode": NO_UPDATE}
    if request.get("inputFilter"):
        load["FilterName"] = request["inputFilter"]
        if request.get("inputFilterOptions"):
            load["FilterOptions"] = request["inputFilterOptions"]
    try:
        document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(request["input"]), "_blank", 0, props(**load))
    except Exception as err:  # a file the filter cannot read: the client's problem, not the listener's
        check_alive(desktop, err)
        return {"ok": False, "stage": "load", "error": describe(err)}
    if document is None:
        check_alive(desktop, "the document could not be loaded")
        return {"ok": False, "stage": "load", "error": "the document could not be loaded"}
    try:
        store = {"FilterName": request["exportFilter"], "Overwrite": True}
        if request.get("exportFilterOptions"):
            store["FilterOptions"] = request["exportFilterOptions"]
        document.storeToURL(uno.systemPathToFileUrl(request["output"]), props(**store))
    except Exception as err:
        check_alive(desktop, err)
        return {"ok": False, "stage": "store", "error": describe(err)}
    finally:
        try:
            document.close(True)
        except Exception:
            try:
                document.dispose()
            except Exception:
                pass  # the listener is gone: the next call says so
    return {"ok": True}


def read_requests(requests, listener_group):
    """Reads stdin on its own thread, so its end is noticed even while a conversion is running."""
    for line in sys.stdin:
        if line.strip():
            requests.put(json.loads(line))
    try:
        # 0: the listener runs in a jail of its own, which dies with the server by itself.
        if listener_group > 0:
            os.killpg(listener_group, signal.SIGKILL)
    finally:
        os._exit(0)


def main():
    target, timeout, listener_group = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    requests = queue.Queue()
    threading.Thread(target=read_requests, args=(requests, listener_group), daemon=True).start()
    desktop = connect(target, timeout)
    answer({"ready": True})
    while True:
        request = requests.get()
        try:
            if request["op"] == "ping":
                desktop.getCurrentComponent()
                result = {"ok": True}
            else:
                result = convert(desktop, request)
        except (BridgeLost, DisposedException) as err:
            answer({"id": request.get("id"), "ok": False, "stage": "bridge", "error": describe(err)})
            sys.exit(3)
        answer({"id": request.get("id"), **result})


if __name__ == "__main__":
    main()
