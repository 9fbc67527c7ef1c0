import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives: user `mailer`, password `s3cret`;
 * `bounce@` addresses are refused. `url` is what TESSERA_SMTP_URL would be.
 */
export async function startTestSmtp() {
  const received: ParsedMail[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 's3cret') return callback(null, { user: 'mailer' });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('bounce@')) return callback(new Error('Mailbox unavailable'));
      return callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as { port: number }).port;
  return {
    received,
    url: `smtp://mailer:s3cret@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => smtp.close(resolve)),
  };
}
