//! The live page of a tournament folder (`arbiter watch DIR`, `league --watch`): a
//! read-only HTTP server of one page and the JSON it polls, built from what the run writes
//! ([`state`]).
//!
//! What it serves is fixed: the page (its HTML, CSS and JS are in the binary), `/team/NAME`
//! (the same page for one team), and the JSON under `/api/`. It opens no file by a path a
//! request names, so no request reaches outside the results folder; one that tries (`..`)
//! is refused. Requests are parsed by `tiny_http`; a garbled one gets its error and the
//! server goes on. It never writes into the folder.

mod state;

use crate::error::Error;
use state::Folder;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Where the page is served unless `--listen` says otherwise: this machine only, a port
/// the system picks.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// Threads answering requests: a slow client holds one at most while it is answered.
const THREADS: usize = 4;

/// The page: its HTML with its CSS and JS put in.
fn page() -> String {
    include_str!("page.html")
        .replace("/*CSS*/", include_str!("page.css"))
        .replace("/*JS*/", include_str!("page.js"))
}

/// A running page server: its address, and its threads until [`Server::stop`].
pub struct Server {
    addr: SocketAddr,
    server: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves the folder `dir` on `listen` (`ADDR:PORT`; port 0: one the system picks).
    pub fn start(dir: &Path, listen: &str) -> Result<Server, Error> {
        let refused = |e: &dyn std::fmt::Display| {
            Error::usage(format!(
                "--listen {listen}: cannot serve the page there ({e}); give ADDR:PORT of \
                 this machine, e.g. 127.0.0.1:8080 or 0.0.0.0:8080 for a classroom's network"
            ))
        };
        let listener = std::net::TcpListener::bind(listen).map_err(|e| refused(&e))?;
        no_delay(&listener);
        let server = tiny_http::Server::from_listener(listener, None).map_err(|e| refused(&e))?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| Error::usage(format!("--listen {listen}: not an IP address")))?;
        let server = Arc::new(server);
        let stop = Arc::new(AtomicBool::new(false));
        let folder = Arc::new(Folder::new(dir));
        let page = Arc::new(page());
        let threads = (0..THREADS)
            .map(|_| {
                let (server, stop, folder, page) =
                    (server.clone(), stop.clone(), folder.clone(), page.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        match server.recv_timeout(Duration::from_millis(200)) {
                            Ok(Some(request)) => answer(request, &folder, &page),
                            Ok(None) => {}
                            Err(_) => std::thread::sleep(Duration::from_millis(50)),
                        }
                    }
                })
            })
            .collect();
        Ok(Server {
            addr,
            server,
            stop,
            threads,
        })
    }

    /// The page's address, as a browser takes it.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// Stops serving: the threads end once their request is answered.
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

/// Sets `TCP_NODELAY` on the listening socket, which Linux hands on to every connection it
/// accepts: tiny_http writes an answer's head and body apart, and without it a kept-alive
/// client's delayed acknowledgement held each body back some 40 ms. Where it cannot be
/// set, answers are only slower.
fn no_delay(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: the descriptor is open for the call; `on` outlives it and is the size given.
    unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// What a request gets: a status, a content type and a body.
struct Answer {
    status: u16,
    kind: &'static str,
    body: Arc<String>,
}

impl Answer {
    fn ok(kind: &'static str, body: Arc<String>) -> Answer {
        Answer {
            status: 200,
            kind,
            body,
        }
    }
    fn error(status: u16, message: &str) -> Answer {
        Answer {
            status,
            kind: "text/plain; charset=utf-8",
            body: Arc::new(format!("{message}\n")),
        }
    }
}

const JSON: &str = "application/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Answers one request; a client gone meanwhile is no error of the server's.
fn answer(request: tiny_http::Request, folder: &Folder, page: &Arc<String>) {
    let reply = route(request.method(), request.url(), folder, page);
    let mut response = tiny_http::Response::from_string(reply.body.as_str())
        .with_status_code(reply.status)
        .with_header(header("Content-Type", reply.kind))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"));
    if reply.kind == HTML {
        // The page loads nothing from elsewhere: no CDN, no internet.
        response = response.with_header(header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
        ));
    }
    let _ = request.respond(response);
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
        .expect("a header of the server's own is valid")
}

/// The answer to `method` on `url`.
fn route(method: &tiny_http::Method, url: &str, folder: &Folder, page: &Arc<String>) -> Answer {
    if !matches!(method, tiny_http::Method::Get | tiny_http::Method::Head) {
        return Answer::error(405, "the page is read-only: GET only");
    }
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let Some(path) = decode(path) else {
        return Answer::error(400, "a path that is not UTF-8 percent-encoded");
    };
    if path.split('/').any(|part| part == ".." || part == ".") || path.contains('\\') {
        return Answer::error(400, "refused: the page serves no file by its path");
    }
    let got = |result: Result<Option<Arc<String>>, Error>, what: &str| match result {
        Ok(Some(body)) => Answer::ok(JSON, body),
        Ok(None) => Answer::error(404, &format!("no {what}")),
        Err(e) => Answer::error(503, &format!("the folder cannot be read now: {e}")),
    };
    match path.as_str() {
        "/" | "/index.html" => Answer::ok(HTML, page.clone()),
        "/api/state" => got(folder.state().map(|s| Some(Arc::new(s))), "state"),
        "/api/games" => got(folder.games().map(Some), "games"),
        _ => {
            if let Some(name) = path.strip_prefix("/team/")
                && !name.is_empty()
                && !name.contains('/')
            {
                return match folder.team(name) {
                    Ok(Some(_)) => Answer::ok(HTML, page.clone()),
                    Ok(None) => Answer::error(404, "no team of that name in this tournament"),
                    Err(e) => Answer::error(503, &format!("the folder cannot be read now: {e}")),
                };
            }
            if let Some(name) = path.strip_prefix("/api/team/") {
                return got(folder.team(name), "team of that name in this tournament");
            }
            if let Some(id) = path.strip_prefix("/api/game/") {
                return match id.parse::<u64>() {
                    Ok(id) => got(folder.replay(id), "finished game of that id"),
                    Err(_) => Answer::error(400, "a game is asked for by its id, a number"),
                };
            }
            Answer::error(404, "no such page")
        }
    }
}

/// A URL path percent-decoded, or `None` when it is not UTF-8.
fn decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = path.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Checks that `dir` is a tournament folder, whose page can be served.
pub fn check_folder(dir: &Path) -> Result<(), Error> {
    if dir.join(crate::tournament::journal::JOURNAL_FILE).is_file() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "{}: no tournament folder (no {} in it): give the --out folder of a league, \
         gauntlet or sprt, running or finished",
        dir.display(),
        crate::tournament::journal::JOURNAL_FILE
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_percent_decoded_and_a_bad_one_refused() {
        assert_eq!(decode("/team/T%2005").as_deref(), Some("/team/T 05"));
        assert_eq!(decode("/team/%E2%82%AC").as_deref(), Some("/team/€"));
        assert_eq!(decode("/team/%ff"), None);
        assert_eq!(decode("/50%").as_deref(), Some("/50%"));
    }
}
