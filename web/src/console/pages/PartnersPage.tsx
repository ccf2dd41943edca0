// Partners: the list and a form to register one.
import type { FormEvent } from 'react';
import { formatDateTime } from '../../shared/format.ts';
import { Link, navigate } from '../../shared/router.ts';
import { ErrorNotice, LoadState, StatusBadge, TextArea, TextField, useAction, useLoad } from '../../shared/ui.tsx';
import { field, lines } from '../forms.ts';
import { useSession } from '../session.tsx';
import type { Items, Partner } from '../types.ts';

export function PartnersPage() {
  const session = useSession();
  const partners = useLoad(() => session.api<Items<Partner>>('GET', '/admin/v1/partners?limit=500'), []);
  const create = useAction();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await create.run(async () => {
      const partner = await session.api<Partner>('POST', '/admin/v1/partners', {
        name: field(form, 'name'),
        allowedIps: lines(field(form, 'allowedIps')),
        redirectUrls: lines(field(form, 'redirectUrls')),
      });
      navigate(`/console/partners/${partner.id}`);
    });
  };

  return (
    <>
      <h1>Partners</h1>
      <LoadState state={partners} label="partners">
        {(data) =>
          data.items.length === 0 ? (
            <p>No partners yet.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on small screens">
              <table>
                <caption className="visually-hidden">Partners</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Allowed addresses</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((p) => (
                    <tr key={p.id}>
                      <td>
                        <Link to={`/console/partners/${p.id}`}>{p.name}</Link>
                        <br />
                        <code className="muted">{p.id}</code>
                      </td>
                      <td>
                        <StatusBadge status={p.status} />
                      </td>
                      <td>{p.allowedIps.length === 0 ? <span className="muted">none</span> : p.allowedIps.join(', ')}</td>
                      <td>{formatDateTime(p.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </LoadState>

      {session.canWrite && (
        <form onSubmit={(e) => void submit(e)} aria-labelledby="new-partner">
          <h2 id="new-partner">Register a partner</h2>
          <ErrorNotice error={create.error} title="The partner was not created" />
          <TextField label="Name" name="name" required maxLength={200} />
          <TextArea
            label="Allowed server addresses"
            name="allowedIps"
            hint="IPs or CIDRs that may report progress, one per line (e.g. 203.0.113.7 or 10.0.0.0/8)."
          />
          <TextArea
            label="Redirect URLs"
            name="redirectUrls"
            hint="Exact URLs the login may return to, one per line; only the query may vary."
          />
          <div className="actions">
            <button type="submit" disabled={create.busy}>
              Create partner
            </button>
          </div>
        </form>
      )}
    </>
  );
}
