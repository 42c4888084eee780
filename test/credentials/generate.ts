/**
 * Writes `written.json` (credentials as people write them, by class) and `precision.json`
 * (identifiers an agent needs, which must pass whole), from the templates below and a seeded
 * generator: each template is drawn twice, with different values.
 *
 *   npx tsx test/credentials/generate.ts
 *
 * In a template, `⟦…⟧` marks a secret (every character must be hidden) and `⟨…⟩` a part that
 * must stay readable (in `written.json` a flag, command, host or path beside the secret; in
 * `precision.json` an identifier).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

interface Mark {
  at: number
  value: string
}

/** The text of a template and its marks, by position. */
function parse(template: string): { text: string; secrets: Mark[]; kept: Mark[] } {
  let text = ''
  const secrets: Mark[] = []
  const kept: Mark[] = []
  let open: { at: number; into: Mark[]; close: string } | undefined
  for (const c of template) {
    if (c === '⟦' || c === '⟨') {
      if (open) throw new Error(`nested mark in ${template}`)
      open = { at: text.length, into: c === '⟦' ? secrets : kept, close: c === '⟦' ? '⟧' : '⟩' }
    } else if (c === '⟧' || c === '⟩') {
      if (!open || c !== open.close) throw new Error(`unbalanced mark in ${template}`)
      open.into.push({ at: open.at, value: text.slice(open.at) })
      open = undefined
    } else text += c
  }
  if (open) throw new Error(`unclosed mark in ${template}`)
  return { text, secrets, kept }
}

// ---------------------------------------------------------------------------------------
// Values

/** mulberry32: a small seeded generator. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(45)
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const UPPER = LOWER.toUpperCase()
const DIGITS = '0123456789'
const ALNUM = LOWER + UPPER + DIGITS
const B64URL = `${ALNUM}-_`
const B64 = `${ALNUM}+/`
const HEX = '0123456789abcdef'
const of = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => pick([...alphabet])).join('')
const hex = (n: number) => of(HEX, n)
const alnum = (n: number) => of(ALNUM, n)
const b64url = (n: number) => of(B64URL, n)
const base64 = (bytes: number) => {
  const body = of(B64, Math.ceil((bytes * 4) / 3))
  const pad = (3 - (bytes % 3)) % 3
  return pad ? `${body.slice(0, body.length - pad)}${'='.repeat(pad)}` : body
}
const digits = (n: number) => of(DIGITS, n)
/** A password as people choose them: a word, digits and a symbol, or a random run. */
function password(symbols = '!#%*+-_.'): string {
  const word = pick(WORDS)
  switch (int(0, 3)) {
    case 0:
      return `${word[0]?.toUpperCase()}${word.slice(1)}${digits(int(2, 4))}${pick([...symbols])}`
    case 1:
      return `${of(ALNUM + symbols, int(12, 20))}`.replace(/^[-.]/, 'x')
    case 2:
      return `${word}${pick([...symbols])}${pick(WORDS)}${digits(2)}`
    default:
      return `${alnum(int(14, 24))}`
  }
}
/** A password safe inside a URL's userinfo (no `@`, `:` or `/`). */
const urlPassword = () => password('!*-_.~')
const uuid4 = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick([...'89ab'])}${hex(3)}-${hex(12)}`
const uuid1 = () => `${hex(8)}-${hex(4)}-1${hex(3)}-${pick([...'89ab'])}${hex(3)}-${hex(12)}`
const uuid7 = () =>
  `0${int(0x18c, 0x19b).toString(16)}${hex(4)}-${hex(4)}-7${hex(3)}-${pick([...'89ab'])}${hex(3)}-${hex(12)}`
const azureSecret = () => `${of(`${ALNUM}_~.`, 3)}${int(0, 9)}Q~${of(`${ALNUM}_~.-`, int(31, 34))}`

const WORDS = [
  'orange',
  'harbor',
  'violet',
  'pencil',
  'summit',
  'falcon',
  'meadow',
  'copper',
  'lantern',
  'river',
  'velvet',
  'canyon',
  'marble',
  'thunder',
  'willow',
  'basket',
  'rocket',
  'saddle',
  'garden',
  'silver',
  'pepper',
  'winter',
  'castle',
  'dragon',
  'mango',
  'ticket',
  'puzzle',
  'anchor',
  'walnut',
  'tiger',
  'planet',
  'cobalt',
  'jasmine',
  'kettle',
  'glacier',
  'monsoon',
]
/** Words of the BIP-39 English list. */
const BIP39 = (
  'abandon ability able about above absent absorb abstract absurd abuse access accident account ' +
  'accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict ' +
  'address adjust admit adult advance advice aerobic affair afford afraid again age agent agree ' +
  'ahead aim air airport aisle alarm album alcohol alert alien all alley allow almost alone alpha ' +
  'already also alter always amateur amazing among amount amused analyst anchor ancient anger ' +
  'angle angry animal ankle announce annual another answer antenna antique anxiety any apart ' +
  'apology appear apple approve april arch arctic area arena argue arm armed armor army around ' +
  'arrange arrest arrive arrow art artefact artist artwork ask aspect assault asset assist assume ' +
  'bacon badge balance bamboo banana banner barely bargain barrel basket battle beach bean beauty ' +
  'cabbage cabin cable cactus cage cake call calm camera camp canal cancel candy cannon canoe ' +
  'zebra zero zone zoo wrist wrong yard year yellow young youth wagon waist walnut warrior'
).split(' ')
const phrase = (n: number, words: readonly string[] = BIP39) =>
  Array.from({ length: n }, () => pick(words)).join(' ')

// ---------------------------------------------------------------------------------------
// The written corpus: credentials by class

type Template = () => string
const host = () => pick(['db.internal', 'db-01.prod.example.com', '10.0.4.12', 'pg.acme.io'])
const db = () => pick(['orders', 'shop', 'billing', 'app_production'])
const user = () => pick(['app', 'deploy', 'svc_reports', 'ci-bot', 'admin', 'alice'])

const WRITTEN: Record<string, Template[]> = {
  'cli-flag': [
    () => `⟨mysql -u ${user()}⟩ -p⟦${password()}⟧ ⟨-h ${host()}⟩ ⟨${db()}⟩`,
    () =>
      `⟨mysql⟩ --user=${user()} ⟨--password⟩=⟦${password()}⟧ --host=⟨${host()}⟩ -e "SHOW TABLES"`,
    () => `⟨mysqladmin⟩ -uroot -p⟦${password()}⟧ ⟨status⟩`,
    () => `⟨mysqldump⟩ -u root -p⟦${password()}⟧ ⟨${db()}⟩ > ${db()}.sql`,
    () => `PGPASSWORD=⟦${password()}⟧ ⟨psql -h ${host()} -U ${user()} ${db()}⟩`,
    () =>
      `export PGPASSWORD='⟦${password()}⟧'\n⟨pg_dump -h ${host()} -U ${user()} ${db()}⟩ > dump.sql`,
    () =>
      `⟨pg_dump⟩ "⟨host=${host()}⟩ user=${user()} password=⟦${password()}⟧ ⟨dbname=${db()}⟩" -Fc -f backup.dump`,
    () => `⟨sshpass -p⟩ ⟦${password()}⟧ ⟨ssh deploy@${host()}⟩ 'systemctl restart api'`,
    () => `⟨sshpass -p⟩ '⟦${password()}⟧' ⟨scp build.tar.gz⟩ ops@${host()}:/srv/`,
    () => `⟨docker login⟩ -u ${user()} -p ⟦${password()}⟧ ⟨registry.example.com⟩`,
    () => `⟨docker login⟩ --username ${user()} ⟨--password⟩ ⟦${password()}⟧ ⟨ghcr.io⟩`,
    () => `⟨redis-cli -h cache.internal -p 6379⟩ -a ⟦${password()}⟧ ⟨PING⟩`,
    () => `⟨redis-cli⟩ -a '⟦${password()}⟧' --no-auth-warning ⟨INFO keyspace⟩`,
    () =>
      `⟨keytool -genkeypair -alias api -keystore keystore.jks⟩ -storepass ⟦${password()}⟧ -keypass ⟦${password()}⟧ -dname "CN=api"`,
    () =>
      `⟨keytool -importkeystore -srckeystore app.p12⟩ -srcstorepass ⟦${password()}⟧ -deststorepass ⟦${password()}⟧`,
    () =>
      `⟨openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12⟩ -passout pass:⟦${password()}⟧`,
    () => `⟨openssl rsa -in server.key⟩ -passin pass:⟦${password()}⟧ ⟨-out server.nopass.key⟩`,
    () => `⟨curl -u⟩ ${user()}:⟦${password()}⟧ ⟨https://api.example.com/v1/status⟩`,
    () => `⟨curl⟩ --user 'svc:⟦${password()}⟧' ⟨https://jenkins.example.com/job/build/api/json⟩`,
    () =>
      `⟨wget --user=${user()}⟩ ⟨--password⟩=⟦${password()}⟧ ⟨https://files.example.com/report.csv⟩`,
    () => `⟨git clone⟩ ⟨https://⟩${user()}:⟦${alnum(40)}⟧@⟨github.com/org/repo.git⟩`,
    () => `⟨git clone⟩ ⟨https://⟩oauth2:⟦glpat-${b64url(20)}⟧@⟨gitlab.com/acme/api.git⟩`,
    () =>
      `⟨git remote set-url origin⟩ ⟨https://⟩x-access-token:⟦ghp_${alnum(36)}⟧@⟨github.com/acme/infra.git⟩`,
    () =>
      `⟨mongosh⟩ "⟨mongodb+srv://cluster0.ab1cd.mongodb.net/app⟩" --username ${user()} ⟨--password⟩ ⟦${password()}⟧`,
    () => `⟨mongo -u admin⟩ -p ⟦${password()}⟧ ⟨--authenticationDatabase admin⟩`,
    () =>
      `⟨ldapsearch -x -H ldap://ldap.example.com -D "cn=admin,dc=example,dc=com"⟩ -w ⟦${password()}⟧ ⟨-b "dc=example,dc=com"⟩`,
    () => `⟨smbclient //fileserver/share -U⟩ alice%⟦${password()}⟧`,
    () => `⟨htpasswd -b /etc/nginx/.htpasswd⟩ alice ⟦${password()}⟧`,
    () =>
      `⟨az login --service-principal -u ${uuid4()}⟩ -p ⟦${azureSecret()}⟧ ⟨--tenant ${uuid4()}⟩`,
    () => `echo ⟦ghp_${alnum(36)}⟧ | ⟨gh auth login --with-token⟩`,
    () => `⟨aws configure set aws_secret_access_key⟩ ⟦${of(`${ALNUM}/+`, 40)}⟧`,
    () =>
      `⟨heroku config:set⟩ ⟨DATABASE_URL⟩=postgres://${user()}:⟦${urlPassword()}⟧@⟨ec2-3-91-10-2.compute-1.amazonaws.com:5432/d8k1⟩ -a shop`,
    () => `⟨npm config set //registry.npmjs.org/:_authToken⟩ ⟦npm_${alnum(36)}⟧`,
    () => `⟨twine upload -u __token__⟩ -p ⟦pypi-AgEIcHlwaS5vcmc${b64url(60)}⟧ ⟨dist/*⟩`,
    () => `⟨sqlcmd -S tcp:sql.example.com,1433 -U sa⟩ -P ⟦${password()}⟧ ⟨-d master -Q "SELECT 1"⟩`,
    () => `⟨ftp -n ftp.example.com⟩ <<EOF\n⟨user⟩ alice ⟦${password()}⟧\nput report.csv\nbye\nEOF`,
    () =>
      `⟨lftp -u⟩ deploy,⟦${password()}⟧ ⟨sftp://files.example.com⟩ -e "mirror -R dist /var/www; quit"`,
    () => `RSYNC_PASSWORD=⟦${password()}⟧ ⟨rsync -av dist/ rsync://backup@nas.local/web⟩`,
    () => `⟨vault login⟩ ⟦hvs.${b64url(90)}⟧`,
    () => `⟨vault login -method=userpass username=admin⟩ password=⟦${password()}⟧`,
    () =>
      `⟨kubectl⟩ --token=⟦${b64url(36)}.${b64url(120)}⟧ ⟨--server=https://k8s.example.com:6443⟩ ⟨get pods -n prod⟩`,
    () =>
      `⟨helm repo add internal https://charts.example.com⟩ --username ci ⟨--password⟩ ⟦${password()}⟧`,
    () => `⟨./deploy.sh⟩ ⟨--db-password⟩ ⟦${password()}⟧ ⟨--env production⟩`,
    () => `⟨java -jar app.jar⟩ ⟨--password⟩ ⟦${password()}⟧ ⟨--port 8080⟩`,
    () => `⟨node scripts/sync.js⟩ ⟨--api-key⟩ ⟦${alnum(32)}⟧ ⟨--dry-run⟩`,
    () => `⟨terraform apply⟩ -var "⟨db_password⟩=⟦${password()}⟧" ⟨-auto-approve⟩`,
    () => `⟨mosquitto_pub -h broker.local⟩ -u sensor -P ⟦${password()}⟧ ⟨-t home/temp -m 21.5⟩`,
    () => `⟨sqlplus⟩ scott/⟦${password()}⟧@⟨//db.example.com:1521/ORCL⟩`,
    () => `⟨7z a⟩ -p⟦${password()}⟧ ⟨backup.7z /srv/data⟩`,
    () => `⟨zip -P⟩ ⟦${password()}⟧ ⟨secrets.zip config.yml⟩`,
    () => `⟨gpg --batch --passphrase⟩ ⟦${password()}⟧ ⟨-d vault.gpg⟩`,
    () => `⟨mount -t cifs //nas/share /mnt/share -o⟩ username=alice,password=⟦${password()}⟧`,
    () => `⟨nmcli dev wifi connect HomeNet⟩ password ⟦${password()}⟧`,
    () => `⟨cqlsh cassandra.local -u cassandra⟩ -p ⟦${password()}⟧`,
    () => `⟨docker run⟩ -e ⟨POSTGRES_PASSWORD⟩=⟦${password()}⟧ ⟨-p 5432:5432 postgres:16⟩`,
    () => `⟨influx -username admin⟩ -password ⟦${password()}⟧ ⟨-execute 'SHOW DATABASES'⟩`,
  ],
  'config-env': [
    () =>
      `⟨NODE_ENV=production⟩\n⟨PORT=3000⟩\nSESSION_SECRET=⟦${b64url(48)}⟧\nSTRIPE_SECRET_KEY=⟦sk_live_${alnum(24)}⟧\n`,
    () => `DB_HOST=⟨${host()}⟩\nDB_USER=⟨${user()}⟩\nDB_PASS=⟦${password()}⟧\n`,
    () => `export ⟨GITHUB_TOKEN⟩=⟦ghp_${alnum(36)}⟧\nexport ⟨AWS_REGION=eu-west-1⟩\n`,
  ],
  'config-yaml': [
    () =>
      `database:\n  ⟨host: ${host()}⟩\n  ⟨username: ${user()}⟩\n  password: ⟦${password()}⟧\n  ⟨port: 5432⟩\n`,
    () =>
      `spring:\n  datasource:\n    ⟨url: jdbc:postgresql://${host()}:5432/${db()}⟩\n    password: "⟦${password()}⟧"\n`,
    () =>
      `smtp:\n  ⟨server: smtp.sendgrid.net⟩\n  user: apikey\n  pass: ⟦SG.${b64url(22)}.${b64url(43)}⟧\n`,
  ],
  'config-toml': [
    () => `[database]\n⟨user = "${user()}"⟩\npassword = "⟦${password()}⟧"\n⟨host = "${host()}"⟩\n`,
    () => `[http-basic.private]\n⟨username = "ci"⟩\npassword = "⟦${password()}⟧"\n`,
  ],
  'config-ini': [
    () => `[client]\n⟨user=root⟩\npassword=⟦${password()}⟧\n⟨host=${host()}⟩\n`,
    () =>
      `[default]\naws_access_key_id = ⟦AKIA${of(UPPER + DIGITS, 16)}⟧\naws_secret_access_key = ⟦${of(`${ALNUM}/+`, 40)}⟧\n⟨region = us-east-1⟩\n`,
    () => `⟨${host()}:5432:${db()}⟩:${user()}:⟦${password()}⟧\n`,
  ],
  'config-xml': [
    () =>
      `<appSettings>\n  <add key="⟨ClientId⟩" value="⟨${uuid4()}⟩" />\n  <add key="ClientSecret" value="⟦${azureSecret()}⟧" />\n  <add key="⟨Tenant⟩" value="⟨contoso.onmicrosoft.com⟩" />\n</appSettings>`,
    () =>
      `<connectionStrings>\n  <add name="⟨Default⟩" connectionString="⟨Server=sql.example.com;Database=Shop⟩;User Id=sa;Password=⟦${password('!#%*+-_')}⟧;" />\n</connectionStrings>`,
    () =>
      `<servers>\n  <server>\n    <id>⟨nexus⟩</id>\n    <username>⟨ci⟩</username>\n    <password>⟦${password()}⟧</password>\n  </server>\n</servers>`,
    () =>
      `<packageSourceCredentials>\n  <⟨github⟩>\n    <add key="Username" value="octocat" />\n    <add key="ClearTextPassword" value="⟦ghp_${alnum(36)}⟧" />\n  </github>\n</packageSourceCredentials>`,
  ],
  netrc: [
    () => `⟨machine api.heroku.com⟩\n  login me@example.com\n  password ⟦${uuid4()}⟧\n`,
    () => `⟨machine github.com⟩ login octocat password ⟦ghp_${alnum(36)}⟧`,
    () =>
      `⟨machine ftp.example.com⟩ login alice password ⟦${password()}⟧\ndefault login anonymous password guest@`,
  ],
  'docker-config': [
    () =>
      `{\n  "auths": {\n    "⟨https://index.docker.io/v1/⟩": {\n      "auth": "⟦${base64(int(18, 30))}⟧"\n    },\n    "⟨ghcr.io⟩": {\n      "auth": "⟦${base64(int(40, 50))}⟧"\n    }\n  }\n}`,
  ],
  npmrc: [
    () =>
      `⟨//registry.npmjs.org/⟩:_authToken=⟦npm_${alnum(36)}⟧\n⟨@acme:registry=https://npm.pkg.github.com⟩\n`,
    () => `⟨//npm.pkg.github.com/⟩:_authToken=⟦ghp_${alnum(36)}⟧\n`,
    () =>
      `⟨registry=https://nexus.example.com/repository/npm/⟩\n_auth=⟦${base64(int(14, 24))}⟧\n⟨always-auth=true⟩\n`,
  ],
  kubeconfig: [
    () =>
      `users:\n- name: ⟨ci-deployer⟩\n  user:\n    token: ⟦eyJhbGciOiJSUzI1NiIsImtpZCI6I${b64url(40)}.${b64url(180)}.${b64url(86)}⟧\n`,
    () =>
      `users:\n- name: ⟨kubernetes-admin⟩\n  user:\n    ⟨client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t⟩\n    client-key-data: ⟦LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB${base64(300)}⟧\n`,
  ],
  dockerfile: [
    () => `⟨FROM node:20-alpine⟩\nENV ⟨DB_PASSWORD⟩ ⟦${password()}⟧\n⟨WORKDIR /app⟩`,
    () =>
      `⟨FROM python:3.12⟩\nARG ⟨PIP_TOKEN⟩=⟦${alnum(32)}⟧\nENV ⟨API_KEY⟩=⟦${hex(32)}⟧ ⟨PORT=8000⟩`,
  ],
  'config-code': [
    () => `⟨define( 'DB_NAME', 'wordpress' );⟩\ndefine( 'DB_PASSWORD', '⟦${password()}⟧' );`,
    () => `⟨spring.datasource.username=${user()}⟩\nspring.datasource.password=⟦${password()}⟧\n`,
    () =>
      `⟨resource "aws_db_instance" "main" {⟩\n  ⟨username = "${user()}"⟩\n  password = "⟦${password()}⟧"\n}`,
  ],
  'webhook-url': [
    () =>
      `⟨https://hooks.slack.com/services/⟩⟦T${of(UPPER + DIGITS, 8)}/B${of(UPPER + DIGITS, 10)}/${alnum(24)}⟧`,
    () =>
      `⟨curl -X POST -H 'Content-type: application/json'⟩ --data '{"text":"deploy done"}' ⟨https://hooks.slack.com/services/⟩⟦T${of(UPPER + DIGITS, 10)}/B${of(UPPER + DIGITS, 10)}/${alnum(24)}⟧`,
    () => `⟨https://discord.com/api/webhooks/⟩${digits(19)}/⟦${b64url(68)}⟧`,
    () => `DISCORD_WEBHOOK=⟨https://discordapp.com/api/webhooks/⟩${digits(18)}/⟦${b64url(68)}⟧`,
    () =>
      `⟨https://api.telegram.org/⟩bot⟦${digits(10)}:AA${b64url(33)}⟧⟨/sendMessage⟩?chat_id=⟨-100${digits(10)}⟩`,
    () => `⟨curl "https://api.telegram.org/⟩bot⟦${digits(9)}:AA${b64url(33)}⟧⟨/getUpdates"⟩`,
    () =>
      `⟨https://contoso.webhook.office.com/webhookb2/⟩⟦${uuid4()}@${uuid4()}/IncomingWebhook/${hex(32)}/${uuid4()}⟧`,
  ],
  passphrase: [
    () => `passphrase: ⟦${phrase(4, WORDS)}⟧\n⟨key_file: ~/.ssh/id_ed25519⟩`,
    () => `{"⟨key_id⟩": "⟨${hex(16).toUpperCase()}⟩", "passphrase": "⟦${phrase(5, WORDS)}⟧"}`,
    () => `GPG_PASSPHRASE="⟦${phrase(4, WORDS)}⟧"`,
    () => `⟨ssh-keygen -t ed25519 -f ~/.ssh/deploy⟩ -N "⟦${phrase(4, WORDS)}⟧"`,
    () => `The Wi-Fi password is "⟦${phrase(3, WORDS)}⟧", ⟨the network is Guest-5G⟩.`,
  ],
  'seed-phrase': [
    () => `mnemonic: ⟦${phrase(12)}⟧\n⟨network: mainnet⟩`,
    () => `{"seed_phrase": "⟦${phrase(24)}⟧", "⟨account_index⟩": 0}`,
    () => `MNEMONIC="⟦${phrase(12)}⟧"\n⟨RPC_URL=https://rpc.ankr.com/eth⟩`,
    () => `recovery phrase: ⟦${phrase(12)}⟧`,
  ],
  'secret-name': [
    () => `⟨production:⟩\n  secret_key_base: ⟦${hex(128)}⟧\n`,
    () => `hmac_key = "⟦${hex(64)}⟧"`,
    () => `{"⟨address⟩": "⟨0x${hex(40)}⟩", "private_key_hex": "⟦${hex(64)}⟧"}`,
    () =>
      `recovery_codes:\n  - ⟦${hex(5)}-${hex(5)}⟧\n  - ⟦${hex(5)}-${hex(5)}⟧\n  - ⟦${hex(5)}-${hex(5)}⟧\n`,
    () => `{"backup_codes": ["⟦${digits(8)}⟧", "⟦${digits(8)}⟧", "⟦${digits(8)}⟧"]}`,
    () => `encryption_key: ⟦${base64(32)}⟧\n⟨cipher: aes-256-gcm⟩`,
    () => `⟨OTP issuer: Acme⟩\ntotp_secret: ⟦${of('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 32)}⟧`,
    () => `SECRET_KEY = '⟦${of(`${LOWER}${DIGITS}!@#%^&*(-_=+)`, 50)}⟧'\n⟨DEBUG = False⟩`,
    () =>
      `{"⟨webhook_url⟩": "⟨https://example.com/hooks/stripe⟩", "signing_secret": "⟦whsec_${alnum(32)}⟧"}`,
    () => `JWT_SECRET=⟦${b64url(64)}⟧\n⟨JWT_EXPIRES_IN=3600⟩`,
    () => `master_key: ⟦${hex(32)}⟧`,
  ],
  'connection-string': [
    () => `DATABASE_URL=⟨postgres://⟩${user()}:⟦${urlPassword()}⟧@⟨${host()}:5432/${db()}⟩`,
    () =>
      `⟨mongodb+srv://⟩${user()}:⟦${urlPassword()}⟧@⟨cluster0.${alnum(5).toLowerCase()}.mongodb.net/${db()}?retryWrites=true&w=majority⟩`,
    () => `REDIS_URL=⟨redis://⟩:⟦${urlPassword()}⟧@⟨cache.example.com:6379/0⟩`,
    () => `⟨rediss://⟩default:⟦${alnum(32)}⟧@⟨${alnum(8).toLowerCase()}.upstash.io:6379⟩`,
    () =>
      `⟨Server=tcp:${alnum(6).toLowerCase()}.database.windows.net,1433;Initial Catalog=${db()}⟩;User ID=${user()};Password=⟦${password('!#%*+-_')}⟧;⟨Encrypt=True;⟩`,
    () =>
      `⟨jdbc:postgresql://${host()}:5432/${db()}⟩?user=${user()}&password=⟦${urlPassword()}⟧⟨&ssl=true⟩`,
    () =>
      `⟨jdbc:sqlserver://sql.example.com:1433;databaseName=${db()}⟩;user=sa;password=⟦${password('!#%*+-_')}⟧;`,
    () => `⟨amqp://⟩${user()}:⟦${urlPassword()}⟧@⟨rabbit.internal:5672/%2f⟩`,
    () =>
      `⟨DefaultEndpointsProtocol=https;AccountName=acmestore${digits(2)}⟩;AccountKey=⟦${base64(64)}⟧;⟨EndpointSuffix=core.windows.net⟩`,
    () =>
      `⟨Driver={ODBC Driver 18 for SQL Server};Server=sql.example.com⟩;Uid=${user()};Pwd=⟦${password('!#%*+-_')}⟧;`,
  ],
  'azure-ad-client-secret': [
    () =>
      `Created a new client secret for ⟨app ${uuid4()}⟩: ⟦${azureSecret()}⟧ (⟨expires 2027-05-01⟩)`,
    () => `| ⟨prod-api⟩ | ⟦${azureSecret()}⟧ | ⟨2027-01-31⟩ |`,
    () =>
      `{\n  "⟨appId⟩": "⟨${uuid4()}⟩",\n  "⟨displayName⟩": "⟨ci-deployer⟩",\n  "password": "⟦${azureSecret()}⟧",\n  "⟨tenant⟩": "⟨${uuid4()}⟩"\n}`,
    () => `AZURE_CLIENT_ID=⟨${uuid4()}⟩\nAZURE_CLIENT_SECRET=⟦${azureSecret()}⟧`,
    () => `value: ⟦${azureSecret()}⟧`,
  ],
}

// ---------------------------------------------------------------------------------------
// The precision corpus: identifiers an agent needs

const sha = () => hex(40)
const sheet = () => `1${b64url(43)}`
const driveFile = () => `1${b64url(32)}`
/** A Microsoft Graph (Outlook) message id: a mailbox GUID in base64, then store ids. */
const graphMessage = () =>
  `AAMkAG${Buffer.from(uuid4()).toString('base64').slice(2, 48)}ABGAAAAAA${b64url(22)}BwA${b64url(22)}AAAAAAEMAAA${b64url(22)}AAA${b64url(5)}AAA=`
const youtube = () => b64url(11)
const playlist = () => `PL${b64url(32)}`
const stripeId = (prefix: string) => `${prefix}_${alnum(prefix === 'cus' ? 14 : 24)}`
const pnr = () => of(UPPER + DIGITS, 6)
const ups = () => `1Z${of(UPPER + DIGITS, 6)}${digits(10)}`
const fedex = () => digits(12)
const usps = () => `9400${digits(18)}`
const objectId = () => hex(24)
const ulid = () => of('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)
/** Real ids of the bundled τ-bench airline data. */
const TAU = {
  users: [
    'mia_li_3668',
    'olivia_gonzalez_2305',
    'omar_davis_3817',
    'sofia_kim_7287',
    'chen_lee_6825',
  ],
  reservations: ['Z7GOZK', 'JG7FMM', '2FBBAH', 'X7BYG1', 'EQ1G6C', 'BOH180', 'LQ940Q', '4WQ150'],
  payments: [
    'credit_card_4421486',
    'gift_card_7219486',
    'certificate_7504069',
    'gift_card_3481935',
  ],
  flights: ['HAT136', 'HAT039', 'HAT069', 'HAT083'],
}

const PRECISION: Record<string, Template[]> = {
  'json-tool-result': [
    () => `{"⟨spreadsheet_id⟩": "⟨${sheet()}⟩", "⟨range⟩": "Sheet1!A1:D20", "updated_rows": 12}`,
    () => `{"id": "⟨${graphMessage()}⟩", "subject": "Q3 invoice", "from": "billing@example.com"}`,
    () => `{"⟨message_id⟩": "⟨${graphMessage()}⟩", "⟨conversation_id⟩": "⟨${graphMessage()}⟩"}`,
    () => `{"⟨playlist_id⟩": "⟨${playlist()}⟩", "⟨video_id⟩": "⟨${youtube()}⟩", "position": 3}`,
    () =>
      `{"⟨file_id⟩": "⟨${driveFile()}⟩", "name": "Roadmap.docx", "mimeType": "application/vnd.google-apps.document"}`,
    () =>
      `{"customer": "⟨${stripeId('cus')}⟩", "payment_intent": "⟨${stripeId('pi')}⟩", "charge": "⟨${stripeId('ch')}⟩", "invoice": "⟨${stripeId('in')}⟩", "status": "succeeded"}`,
    () =>
      `{"sha": "⟨${sha()}⟩", "commit": {"message": "Fix flaky test", "tree": {"sha": "⟨${sha()}⟩"}}, "parents": [{"sha": "⟨${sha()}⟩"}]}`,
    () => `{"request_id": "⟨${uuid4()}⟩", "trace_id": "⟨${uuid7()}⟩", "session": null}`,
    () =>
      `{"reservation_id": "⟨${pick(TAU.reservations)}⟩", "user_id": "⟨${pick(TAU.users)}⟩", "flights": [{"flight_number": "⟨${pick(TAU.flights)}⟩", "date": "2024-05-20"}], "cabin": "⟨basic_economy⟩", "payment_history": [{"payment_id": "⟨${pick(TAU.payments)}⟩", "amount": 1312}]}`,
    () =>
      `{"user_id": "⟨${pick(TAU.users)}⟩", "payment_methods": {"⟨${pick(TAU.payments)}⟩": {"source": "credit_card", "brand": "visa", "last_four": "9932"}, "⟨${pick(TAU.payments)}⟩": {"source": "gift_card", "amount": 55}}}`,
    () =>
      `{"tracking": [{"carrier": "UPS", "number": "⟨${ups()}⟩"}, {"carrier": "FedEx", "number": "⟨${fedex()}⟩"}, {"carrier": "USPS", "number": "⟨${usps()}⟩"}]}`,
    () =>
      `{"order_id": "⟨ord.2024.${digits(4)}⟩", "booking_reference": "⟨${pnr()}⟩", "status": "confirmed"}`,
    () =>
      `{"assignee": "⟨user_${int(1, 99)}⟩", "reporter": "⟨auth0|${hex(24)}⟩", "metric": "⟨token_count⟩", "value": 18231}`,
    () => `{"_id": "⟨${objectId()}⟩", "event_id": "⟨${ulid()}⟩", "node_id": "⟨${base64(12)}⟩"}`,
    () => `{"uuid_v1": "⟨${uuid1()}⟩", "uuid_v4": "⟨${uuid4()}⟩", "uuid_v7": "⟨${uuid7()}⟩"}`,
    () =>
      `{"idempotency_key": "⟨${uuid4()}⟩", "key_id": "⟨${hex(16)}⟩", "grant_type": "⟨client_credentials⟩", "token_type": "⟨Bearer⟩"}`,
    () =>
      `{"event": "⟨password_reset⟩", "user": "⟨user_${int(1, 99)}⟩", "at": "2026-03-02T10:00:00Z"}`,
  ],
  prose: [
    () => `I added the 12 rows to spreadsheet ⟨${sheet()}⟩; the summary is on the second tab.`,
    () => `Commit ⟨${sha().slice(0, 7)}⟩ fixed it; the full id is ⟨${sha()}⟩.`,
    () =>
      `Your reservation ⟨${pick(TAU.reservations)}⟩ for user ⟨${pick(TAU.users)}⟩ was paid with ⟨${pick(TAU.payments)}⟩ and is in ⟨basic_economy⟩.`,
    () => `The parcel ships with UPS as ⟨${ups()}⟩; the return label is USPS ⟨${usps()}⟩.`,
    () => `Playlist ⟨${playlist()}⟩ now starts with video ⟨${youtube()}⟩.`,
    () =>
      `Refunded charge ⟨${stripeId('ch')}⟩ on customer ⟨${stripeId('cus')}⟩ (invoice ⟨${stripeId('in')}⟩).`,
    () => `Booking reference ⟨${pnr()}⟩, order ⟨ord.2025.${digits(4)}⟩, FedEx ⟨${fedex()}⟩.`,
    () => `Replied to message ⟨${graphMessage()}⟩ in the thread.`,
    () => `The Drive file ⟨${driveFile()}⟩ is shared with the team; the sheet is ⟨${sheet()}⟩.`,
    () =>
      `Opened ⟨https://docs.google.com/spreadsheets/d/${sheet()}/edit#gid=0⟩ and filled in column D.`,
    () =>
      `Watch ⟨https://www.youtube.com/watch?v=${youtube()}&list=${playlist()}⟩ before the call.`,
    () => `The image ⟨sha256:${hex(64)}⟩ was pushed; request ⟨${uuid4()}⟩ took 2.1 s.`,
  ],
  yaml: [
    () =>
      `⟨spreadsheet_id⟩: ⟨${sheet()}⟩\n⟨playlist_id⟩: ⟨${playlist()}⟩\n⟨message_id⟩: ⟨${graphMessage()}⟩\n`,
    () =>
      `release:\n  commit: ⟨${sha()}⟩\n  short: ⟨${sha().slice(0, 7)}⟩\n  build_id: ⟨${uuid7()}⟩\n`,
    () =>
      `customer_id: ⟨${stripeId('cus')}⟩\nsubscription_id: ⟨${stripeId('sub')}⟩\nprice_id: ⟨${stripeId('price')}⟩\n`,
  ],
  'beside-a-credential': [
    () =>
      `{"auth": {"user": "admin", "pass": "⟦S3cr3t!${alnum(3)}⟧"}, "assignee": "⟨user_10⟩", "owner": "⟨user_${int(11, 99)}⟩"}`,
    () =>
      `{"headers": {"Authorization": "Basic ⟦${base64(18)}⟧"}, "cabin": "⟨basic_economy⟩", "reservation_id": "⟨${pick(TAU.reservations)}⟩"}`,
    () =>
      `{"api_key": "⟦${alnum(32)}⟧", "⟨spreadsheet_id⟩": "⟨${sheet()}⟩", "⟨message_id⟩": "⟨${graphMessage()}⟩"}`,
    () =>
      `⟨git push⟩ ⟨https://⟩ci:⟦ghp_${alnum(36)}⟧@⟨github.com/acme/api.git⟩ ⟨main⟩ # ⟨${sha()}⟩`,
    () =>
      `password: ⟦${password()}⟧\n⟨user_id⟩: ⟨${pick(TAU.users)}⟩\n⟨playlist_id⟩: ⟨${playlist()}⟩\n`,
    () =>
      `{"token": "⟦${b64url(40)}⟧", "token_count": ⟨${int(100, 9000)}⟩, "metric": "⟨token_count⟩", "customer": "⟨${stripeId('cus')}⟩"}`,
  ],
}

/**
 * Real tool results of the bundled τ-bench airline trajectories (test/data/tau-bench, MIT):
 * the first ones of each tool, every user, reservation, payment and flight id in them marked.
 */
function tauToolResults(
  perTool: number,
): { id: string; class: string; text: string; secrets: Mark[]; kept: Mark[] }[] {
  const data = JSON.parse(
    gunzipSync(
      readFileSync(new URL('../data/tau-bench/gpt-4o-airline.json.gz', import.meta.url)),
    ).toString('utf8'),
  ) as { traj: { role: string; name?: string; content: unknown }[] }[]
  const ID =
    /\b(?:[a-z]+_[a-z]+_\d{4}|(?:credit_card|gift_card|certificate)_\d{7}|HAT\d{3}|basic_economy)\b|(?<="reservation_id": ")[A-Z0-9]{6}(?=")|(?<=")[A-Z0-9]{6}(?=", ")/g
  const taken = new Map<string, number>()
  const out: ReturnType<typeof tauToolResults> = []
  for (const record of data)
    for (const m of record.traj) {
      if (m.role !== 'tool' || typeof m.content !== 'string' || !m.name) continue
      const n = taken.get(m.name) ?? 0
      if (n >= perTool || m.content.length > 4000 || !m.content.startsWith('{')) continue
      const kept = [...m.content.matchAll(ID)].map((x) => ({ at: x.index, value: x[0] }))
      if (kept.length === 0) continue
      taken.set(m.name, n + 1)
      out.push({
        id: `tau-bench/${m.name}.${n + 1}`,
        class: 'tau-bench-tool-result',
        text: m.content,
        secrets: [],
        kept,
      })
    }
  return out
}

// ---------------------------------------------------------------------------------------

const VARIANTS = 2

function draw(classes: Record<string, Template[]>) {
  const out: {
    id: string
    class: string
    text: string
    secrets: Mark[]
    kept: Mark[]
  }[] = []
  for (const [name, templates] of Object.entries(classes))
    for (const [i, template] of templates.entries())
      for (let v = 1; v <= VARIANTS; v++)
        out.push({ id: `${name}/${i + 1}.${v}`, class: name, ...parse(template()) })
  return out
}

{
  const written = draw(WRITTEN).map(({ kept, ...s }) => ({ ...s, survive: kept }))
  const precision = [...draw(PRECISION), ...tauToolResults(3)].map(({ kept, ...s }) => ({
    ...s,
    identifiers: kept,
  }))
  const header = (what: string) => ({
    about: `${what}; written for this project, values drawn by test/credentials/generate.ts (seed 45)`,
  })
  writeFileSync(
    new URL('./written.json', import.meta.url),
    `${JSON.stringify({ ...header('Credentials as people write them, by class'), samples: written }, null, 1)}\n`,
  )
  writeFileSync(
    new URL('./precision.json', import.meta.url),
    `${JSON.stringify({ ...header('Identifiers an agent needs, each to pass whole'), samples: precision }, null, 1)}\n`,
  )
  const count = (xs: { length: number }[]) => xs.reduce((n, x) => n + x.length, 0)
  console.log(
    `written: ${written.length} texts, ${count(written.map((s) => s.secrets))} secrets, ${count(written.map((s) => s.survive))} parts to keep; precision: ${precision.length} texts, ${count(precision.map((s) => s.identifiers))} identifiers, ${count(precision.map((s) => s.secrets))} credentials beside them`,
  )
}
