//! The cheapest hop there is, for `bench/gateway.sh`'s reference line: a TCP relay that copies
//! bytes both ways without reading them, two blocking threads per connection (no HTTP, no
//! event loop). What it adds over a direct call is the machine's floor for any process placed
//! between a client and an upstream. Usage: `byte_relay LISTEN_ADDR UPSTREAM_ADDR`.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::thread;

/// Copies `from` into `to` until `from` ends, then ends `to`'s writing side.
fn copy(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = vec![0; 64 * 1024];
    while let Ok(n @ 1..) = from.read(&mut buf) {
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

fn relay(client: TcpStream, upstream_addr: &str) -> io::Result<()> {
    let upstream = TcpStream::connect(upstream_addr)?;
    for socket in [&client, &upstream] {
        socket.set_nodelay(true)?;
    }
    let (client_in, upstream_out) = (client.try_clone()?, upstream.try_clone()?);
    thread::spawn(move || copy(client_in, upstream_out));
    thread::spawn(move || copy(upstream, client));
    Ok(())
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(upstream)) = (args.next(), args.next()) else {
        eprintln!("usage: byte_relay LISTEN_ADDR UPSTREAM_ADDR");
        std::process::exit(2);
    };
    let listener = TcpListener::bind(listen)?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    for client in listener.incoming() {
        if let Err(err) = client.and_then(|client| relay(client, &upstream)) {
            eprintln!("byte_relay: {err}");
        }
    }
    Ok(())
}
