// A real SMTP server process for the fault tests: `node smtp-sink-process.mjs <port>` listens on 127.0.0.1:<port>,
// accepts every message and prints it as one JSON line ({ to, data }) once it has taken it; "listening" when ready.
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, done) {
    let data = '';
    stream.on('data', (c) => (data += c.toString('utf8')));
    stream.on('end', () => {
      process.stdout.write(JSON.stringify({ to: session.envelope.rcptTo.map((r) => r.address), data }) + '\n');
      done();
    });
  },
});
smtp.server.once('error', (err) => {
  console.error(err.message);
  process.exit(1);
});
smtp.listen(port, '127.0.0.1', () => console.log('listening'));
