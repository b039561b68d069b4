import { createSmtpReceiver, type SmtpReceiver } from '../../../notifier/test/support/smtp-receiver';
import type { Session, TestGateway } from './gateway';

/** A real SMTP server on loopback, set as root's mail server (asking for a code waits for it to take the mail). */
export async function useLoopbackSmtp(gateway: TestGateway, root: Session): Promise<SmtpReceiver> {
  const receiver = await createSmtpReceiver();
  await receiver.start();
  for (const [key, value] of [
    ['AllowPrivateNetworkSmtp', 'true'],
    ['SMTPPort', String(receiver.port)],
    ['SMTPFrom', 'gate@example.com'],
    ['SMTPServer', '127.0.0.1'],
  ]) {
    const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json<{ success: boolean; message: string }>();
    if (!answer.success) throw new Error(`${key}: ${answer.message}`);
  }
  return receiver;
}
