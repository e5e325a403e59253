"""
A long-lived UNO client for one LibreOffice listener (core/engines/execution/libreoffice-pool.ts starts
one per listener, with Debian's /usr/bin/python3, the interpreter that has python3-uno).

    /usr/bin/python3 uno-bridge.py <connect string> <start timeout in seconds> <soffice process group, or 0>

It connects to the listener (retrying while soffice starts), prints {"ready": true}, then reads
one JSON request per line on stdin and answers one JSON line on stdout, in order:

    {"id": 1, "op": "convert", "input": "/abs/in.docx", "output": "/abs/out.pdf",
     "inputFilter": "MS Word 2007 XML", "inputFilterOptions": "",
     "exportFilter": "writer_pdf_Export", "exportFilterOptions": "",
     "password": "...", "edits": {"landscape": true, "showChanges": false,
                                  "metadata": {"title": "...", "author": "...", "subject": "...", "keywords": ["..."]}}}
      -> {"id": 1, "ok": true}
       | {"id": 1, "ok": false, "stage": "load" | "password" | "store", "error": "..."}

`password` and `edits` are optional. A password is used for that load only and never echoed.

Every load and store runs on LibreOffice's main thread (com.sun.star.awt.AsyncCallback): URP runs a
call the client makes while answering a callback on the thread that made the callback. A call
straight from the bridge would run on one of soffice's UNO pool threads, where Writer crashes or
silently fails to load documents with comments (their margin windows are built with the view),
while `soffice --convert-to`, which loads on the main thread, converts them.
    {"id": 2, "op": "ping"} -> {"id": 2, "ok": true}

    /usr/bin/python3 uno-bridge.py --once <soffice> <profile folder> <start timeout in seconds>

starts a soffice listener of its own (a cold conversion that needs UNO: a password or edits), reads one
request from stdin, answers it on stdout and stops soffice.

A lost connection to the listener is fatal: the bridge exits (code 3) and the pool replaces the
listener. Timeouts and kills are the pool's business. When stdin closes (the server exited, even
killed with SIGKILL) the bridge kills the listener's process group, so no soffice is orphaned.
"""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import uno
import unohelper
from com.sun.star.awt import XCallback
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


class Office:
    """The listener's desktop, and a way to run a function on its main thread."""

    def __init__(self, context):
        self.desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        self.callbacks = context.ServiceManager.createInstanceWithContext("com.sun.star.awt.AsyncCallback", context)
        self.dispatcher = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", context)

    def on_main_thread(self, fn):
        call = MainThreadCall(fn)
        self.callbacks.addCallback(call, None)
        # The listener dying meanwhile is noticed by the pool, which kills this bridge with it.
        call.done.wait()
        if call.error is not None:
            raise call.error
        return call.result


class MainThreadCall(unohelper.Base, XCallback):
    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Event()
        self.result = None
        self.error = None

    def notify(self, _data):
        try:
            self.result = self.fn()
        except Exception as err:  # handed back to the waiting thread
            self.error = err
        finally:
            self.done.set()


def connect(target, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return Office(resolver.resolve(f"uno:{target};urp;StarOffice.ComponentContext"))
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


def check_alive(office, err):
    """A failed call is the document's fault only while the listener still answers."""
    try:
        office.desktop.getCurrentComponent()
    except Exception:
        raise BridgeLost(describe(err))


def is_password_error(err):
    # LibreOffice reports a missing or wrong password as an IOException with ERRCODE_SFX_WRONGPASSWORD.
    text = describe(err)
    return "WrongPassword" in text or "wrong password" in text.lower() or "0x11d" in text.lower()


def landscape(document):
    """Every page style turned to landscape (Writer and Calc; slides keep their own size)."""
    families = getattr(document, "StyleFamilies", None)
    if families is None or not families.hasByName("PageStyles"):
        return
    styles = families.getByName("PageStyles")
    for name in styles.getElementNames():
        style = styles.getByName(name)
        info = style.getPropertySetInfo()
        if not (info.hasPropertyByName("IsLandscape") and info.hasPropertyByName("Width")):
            continue
        if style.IsLandscape and style.Width >= style.Height:
            continue
        width, height = style.Width, style.Height
        style.IsLandscape = True
        if width < height:
            style.Width, style.Height = height, width


def has_tracked_changes(document):
    redlines = getattr(document, "Redlines", None)
    return redlines is not None and redlines.getCount() > 0


def apply_edits(office, document, edits):
    if edits.get("landscape"):
        landscape(document)
    if edits.get("showChanges") is False and has_tracked_changes(document):
        # Hiding changes (ShowChanges) still prints deletions in 7.4: the changes are accepted instead.
        office.dispatcher.executeDispatch(
            document.getCurrentController().getFrame(), ".uno:AcceptAllTrackedChanges", "", 0, ()
        )
    metadata = edits.get("metadata")
    if metadata:
        properties = document.getDocumentProperties()
        if "title" in metadata:
            properties.Title = metadata["title"]
        if "author" in metadata:
            properties.Author = metadata["author"]
        if "subject" in metadata:
            properties.Subject = metadata["subject"]
        if "keywords" in metadata:
            properties.Keywords = tuple(metadata["keywords"])


def convert(office, request):
    """Load, edit, store and close in one call on the main thread, as `soffice --convert-to` does: between
    two calls the main loop would run the document's idle layout jobs, which abort soffice on some files."""
    # Read-only, unless tracked changes are to be accepted (a read-only document refuses that); the
    # listener's copy of the input is the only file either way, and storeToURL never writes it.
    accepting = (request.get("edits") or {}).get("showChanges") is False
    load = {"Hidden": True, "ReadOnly": not accepting, "MacroExecutionMode": NEVER_EXECUTE, "UpdateDocMode": NO_UPDATE}
    if request.get("inputFilter"):
        load["FilterName"] = request["inputFilter"]
        if request.get("inputFilterOptions"):
            load["FilterOptions"] = request["inputFilterOptions"]
    encrypted = bool(request.get("password"))
    if encrypted:
        load["Password"] = request["password"]
    store = {"FilterName": request["exportFilter"], "Overwrite": True}
    if request.get("exportFilterOptions"):
        store["FilterOptions"] = request["exportFilterOptions"]
    source = uno.systemPathToFileUrl(request["input"])
    output = uno.systemPathToFileUrl(request["output"])

    def load_failed(err):
        if encrypted or is_password_error(err):
            return {"ok": False, "stage": "password", "error": "the password did not open the document"}
        return {"ok": False, "stage": "load", "error": describe(err)}

    def job():
        try:
            document = office.desktop.loadComponentFromURL(source, "_blank", 0, props(**load))
        except Exception as err:  # a file the filter cannot read: the client's problem, not the listener's
            return load_failed(err), err
        if document is None:
            return load_failed("the document could not be loaded"), "the document could not be loaded"
        try:
            if request.get("edits"):
                apply_edits(office, document, request["edits"])
            document.storeToURL(output, props(**store))
        except Exception as err:
            return {"ok": False, "stage": "store", "error": describe(err)}, err
        finally:
            try:
                document.close(True)
            except Exception:
                try:
                    document.dispose()
                except Exception:
                    pass  # the listener is gone: the next call says so
        return {"ok": True}, None

    result, failure = office.on_main_thread(job)
    if failure is not None:
        check_alive(office, failure)
    return result


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


def once(soffice, profile, timeout):
    request = json.loads(sys.stdin.readline())
    name = f"transmute-once-{os.getpid()}"
    listener = subprocess.Popen(
        [
            soffice,
            "-env:UserInstallation=" + uno.systemPathToFileUrl(profile),
            "--headless",
            "--invisible",
            "--nocrashreport",
            "--nodefault",
            "--nologo",
            "--nofirststartwizard",
            "--norestore",
            "--nolockcheck",
            f"--accept=pipe,name={name};urp;StarOffice.ComponentContext",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        # In this process group: the caller's deadline kills the group, soffice with it.
    )
    try:
        office = connect(f"pipe,name={name}", timeout)
        try:
            result = convert(office, request)
        except (BridgeLost, DisposedException) as err:
            result = {"ok": False, "stage": "bridge", "error": describe(err)}
        answer({"id": request.get("id"), **result})
        try:
            office.desktop.terminate()
        except Exception:
            pass  # it is killed below all the same
    finally:
        try:
            listener.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # soffice.bin is a child of the launcher: the whole group goes, this bridge with it (its answer is out).
            os.killpg(os.getpgid(0), signal.SIGKILL)


def main():
    if sys.argv[1] == "--once":
        once(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        return
    target, timeout, listener_group = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    requests = queue.Queue()
    threading.Thread(target=read_requests, args=(requests, listener_group), daemon=True).start()
    office = connect(target, timeout)
    answer({"ready": True})
    while True:
        request = requests.get()
        try:
            if request["op"] == "ping":
                office.desktop.getCurrentComponent()
                result = {"ok": True}
            else:
                result = convert(office, request)
        except (BridgeLost, DisposedException) as err:
            answer({"id": request.get("id"), "ok": False, "stage": "bridge", "error": describe(err)})
            sys.exit(3)
        answer({"id": request.get("id"), **result})


if __name__ == "__main__":
    main()
