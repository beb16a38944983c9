// Preloaded into Portkey's gateway (node --require) by bench/peers.sh. Portkey 1.15.x calls
// @hono/node-server's serve() with a port and no hostname, so Node listens on every interface
// and it has no option or variable to change that. This makes any listen() that names no host
// (or the wildcard) bind 127.0.0.1 instead; the script then checks with `ss` that it did.
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
const wildcard = (h) => h === undefined || h === null || h === '' || h === '0.0.0.0' || h === '::';
net.Server.prototype.listen = function (...args) {
  const a0 = args[0];
  if (a0 !== null && typeof a0 === 'object' && !Array.isArray(a0)) {
    if (a0.path === undefined && wildcard(a0.host)) args[0] = { ...a0, host: '127.0.0.1' };
  } else if (typeof a0 === 'number' || (typeof a0 === 'string' && /^\d+$/.test(a0))) {
    if (typeof args[1] !== 'string' || wildcard(args[1])) {
      if (typeof args[1] === 'string' || args[1] === undefined || args[1] === null) args[1] = '127.0.0.1';
      else args.splice(1, 0, '127.0.0.1');
    }
  }
  return listen.apply(this, args);
};
