//! Headless Chromium for the browser tests, driven through the Chrome DevTools Protocol
//! over `--remote-debugging-pipe`: JSON messages ended by a NUL byte, written to the
//! browser's fd 3 and read from its fd 4. A pipe needs no WebSocket stack, and the browser
//! cannot outlive the test: it is killed when its [`Browser`] is dropped. Every wait is
//! bounded, so a browser that stops answering fails the test with what it was asked.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one command may take: the machine running the tests may be busy.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

pub struct Browser {
    child: Child,
    channel: Mutex<Channel>,
}

struct Channel {
    to_browser: std::io::PipeWriter,
    from_browser: Receiver<Value>,
    next_id: u64,
}

/// A page of the browser: a target attached with its own session.
pub struct Tab<'a> {
    browser: &'a Browser,
    session: String,
}

impl Browser {
    /// Starts `chromium` headless, offline, with the fresh profile folder `profile` and a
    /// 1200x900 window. `Err` says why it could not start.
    pub fn launch(chromium: &Path, profile: &Path) -> Result<Browser, String> {
        let (command_read, command_write) = std::io::pipe().map_err(|e| e.to_string())?;
        let (reply_read, reply_write) = std::io::pipe().map_err(|e| e.to_string())?;
        let (command_fd, reply_fd) = (command_read.as_raw_fd(), reply_write.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1200,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec. The
        // pipe ends are first copied above fd 10, so that neither is already fd 3 or 4
        // (dup2 onto itself would keep its close-on-exec flag).
        unsafe {
            command.pre_exec(move || {
                let command_copy = libc::fcntl(command_fd, libc::F_DUPFD_CLOEXEC, 10);
                let reply_copy = libc::fcntl(reply_fd, libc::F_DUPFD_CLOEXEC, 10);
                if command_copy < 0
                    || reply_copy < 0
                    || libc::dup2(command_copy, 3) < 0
                    || libc::dup2(reply_copy, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .spawn()
            .map_err(|e| format!("{} does not start: {e}", chromium.display()))?;
        // The browser holds its own ends now: its exit closes the reply pipe.
        drop((command_read, reply_write));
        let (sender, from_browser) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reply_read);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                if message.last() == Some(&0) {
                    message.pop();
                }
                if let Ok(value) = serde_json::from_slice::<Value>(&message)
                    && sender.send(value).is_err()
                {
                    return;
                }
                message.clear();
            }
        });
        Ok(Browser {
            child,
            channel: Mutex::new(Channel {
                to_browser: command_write,
                from_browser,
                next_id: 1,
            }),
        })
    }

    /// Sends `method` with `params` (to the page of `session`, or to the browser) and
    /// waits for its answer, skipping the events that come meanwhile.
    fn call(&self, session: Option<&str>, method: &str, params: Value) -> Result<Value, String> {
        let mut channel = self.channel.lock().unwrap_or_else(|e| e.into_inner());
        let id = channel.next_id;
        channel.next_id += 1;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        channel
            .to_browser
            .write_all(&bytes)
            .map_err(|e| format!("{method}: the browser is gone ({e})"))?;
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = match channel.from_browser.recv_timeout(left) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{method}: no answer within {ANSWER_WITHIN:?}"));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{method}: the browser closed its pipe"));
                }
            };
            if reply["id"] != json!(id) {
                continue;
            }
            return match reply.get("error") {
                Some(error) => Err(format!("{method}: {error}")),
                None => Ok(reply["result"].clone()),
            };
        }
    }

    /// A new page, attached.
    pub fn new_tab(&self) -> Result<Tab<'_>, String> {
        let target = self.call(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        )?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session in {attached}"))?
            .to_string();
        Ok(Tab {
            browser: self,
            session,
        })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Tab<'_> {
    fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.browser.call(Some(&self.session), method, params)
    }

    /// Loads `url` and waits until the document and everything it loads are in.
    pub fn navigate(&self, url: &str) -> Result<(), String> {
        let started = self.call("Page.navigate", json!({"url": url}))?;
        if let Some(error) = started.get("errorText") {
            return Err(format!("{url}: {error}"));
        }
        let url_js = serde_json::to_string(url).expect("a string");
        let deadline = Instant::now() + ANSWER_WITHIN;
        while Instant::now() < deadline {
            let loaded = self.evaluate(
                &format!("location.href === {url_js} && document.readyState === 'complete'"),
                false,
            )?;
            if loaded == json!(true) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(format!("{url} did not load within {ANSWER_WITHIN:?}"))
    }

    /// The value of `expression` (awaited first if `promise`); an exception it throws is
    /// an `Err` with its text.
    pub fn evaluate(&self, expression: &str, promise: bool) -> Result<Value, String> {
        let answer = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": promise}),
        )?;
        if let Some(thrown) = answer.get("exceptionDetails") {
            return Err(format!("it throws: {thrown}"));
        }
        Ok(answer["result"]["value"].clone())
    }

    /// A left click at `(x, y)` of the page, as the mouse makes it: moved, pressed,
    /// released.
    pub fn click_point(&self, x: f64, y: f64) -> Result<(), String> {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        )?;
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    /// A press and release of the key `key` (`ArrowLeft`, `ArrowRight`, `Home`, `End`).
    pub fn press_key(&self, key: &str) -> Result<(), String> {
        let code = match key {
            "End" => 35,
            "Home" => 36,
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            other => return Err(format!("no key code known for {other}")),
        };
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": key,
                       "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}),
            )?;
        }
        Ok(())
    }

    /// A PNG of the page as it is drawn.
    pub fn screenshot_png(&self) -> Result<Vec<u8>, String> {
        use base64::Engine;
        let shot = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "fromSurface": true}),
        )?;
        let data = shot["data"]
            .as_str()
            .ok_or_else(|| format!("no image in {shot}"))?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("the screenshot is not base64: {e}"))
    }
}
