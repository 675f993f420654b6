// knex against quire: its migrations (latest, then rolled back to none)
// and CRUD through the query builder.
//
// Usage: NODE_PATH=<node_modules> node run.js PORT PASSWORD. Prints one
// line per check; on the first failure prints the SQL that failed and
// exits 1.
'use strict';
const assert = require('assert');
const path = require('path');
const mysql = require('mysql2/promise');

const [port, password] = [Number(process.argv[2]), process.argv[3]];
const DB = 'knex_shop';
let lastSql = null;

function check(name, got, want) {
  assert.deepStrictEqual(got, want, name);
  console.log(`ok ${name}`);
}

async function main() {
  const admin = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password });
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const knex = require('knex')({
    client: 'mysql2',
    connection: { host: '127.0.0.1', port, user: 'root', password, database: DB, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true },
    migrations: { directory: path.join(__dirname, 'migrations') },
    pool: { min: 1, max: 2 },
  });
  knex.on('query', (q) => { lastSql = [q.sql, q.bindings]; });
  try {
    await knex.migrate.latest();
    const cols = await knex('book').columnInfo();
    check('migrations applied', [Boolean(cols.subtitle), Boolean(cols.details), Boolean(cols.meta), Number(cols.title.maxLength)],
      [true, true, false, 250]);
    check('dropColumn', Boolean((await knex('author').columnInfo()).born), false);

    const [ann] = await knex('author').insert({ name: 'Ann' });
    const [bob] = await knex('author').insert({ name: 'Bob', active: false });
    check('insert ids', bob, ann + 1);
    await knex('book').insert([
      { author_id: ann, title: 'One', pages: 100, price: '9.50', details: JSON.stringify({ tags: ['a'] }), published: '2020-01-02 03:04:05' },
      { author_id: ann, title: 'Two', pages: 250, price: '12.00', published: '2021-06-07 08:09:10' },
      { author_id: bob, title: 'Three', pages: 50, price: '3.25', published: '2019-12-31 23:59:59' },
    ]);
    await assert.rejects(knex('book').insert({ author_id: ann, title: 'One', pages: 1, price: 1 }), (e) => e.code === 'ER_DUP_ENTRY');
    console.log('ok unique refuses a duplicate');
    await assert.rejects(knex('book').insert({ author_id: 999, title: 'X', pages: 1, price: 1 }), (e) => e.code === 'ER_NO_REFERENCED_ROW_2');
    console.log('ok foreign key refuses an orphan');

    check('where + orderBy', (await knex('book').where('pages', '>', 60).orderBy('title').pluck('title')), ['One', 'Two']);
    check('whereIn + whereBetween', (await knex('book').whereIn('author_id', [ann, bob]).whereBetween('price', [3, 10]).orderBy('id').pluck('title')),
      ['One', 'Three']);
    check('whereNull', (await knex('book').whereNull('details').orderBy('id').pluck('title')), ['Two', 'Three']);
    check('JSON', JSON.parse(JSON.stringify((await knex('book').where('title', 'One').first('details')).details)), { tags: ['a'] });
    check('join + groupBy + count/sum', (await knex('author as a').join('book as b', 'b.author_id', 'a.id')
      .groupBy('a.name').orderBy('a.name').select('a.name').count({ n: '*' }).sum({ pages: 'b.pages' }))
      .map((r) => [r.name, Number(r.n), Number(r.pages)]), [['Ann', 2, 350], ['Bob', 1, 50]]);
    check('limit/offset', await knex('book').orderBy('title').limit(1).offset(1).pluck('title'), ['Three']);
    check('subquery', await knex('author').whereIn('id', knex('book').select('author_id').where('pages', '<', 60)).pluck('name'), ['Bob']);
    check('update with raw', await knex('book').where('author_id', ann).update({ pages: knex.raw('pages + 1') }), 2);
    check('onConflict merge', (await knex('author').insert({ name: 'Ann', active: false }).onConflict('name').merge(['active']), 
      await knex('author').where('name', 'Ann').first('active')).active, 0);

    await assert.rejects(knex.transaction(async (trx) => {
      await trx('author').insert({ name: 'Cy' });
      throw new Error('roll back');
    }), /roll back/);
    check('transaction rollback', await knex('author').where('name', 'Cy').pluck('name'), []);
    await knex.transaction(async (trx) => {
      const rows = await trx('book').where('author_id', bob).forUpdate();
      await trx('book').where('id', rows[0].id).update({ title: 'Three!' });
    });
    check('forUpdate', await knex('book').where('author_id', bob).pluck('title'), ['Three!']);
    check('delete cascades', await knex('author').where('id', ann).del(), 1);
    check('children gone', await knex('book').count({ n: '*' }).first().then((r) => Number(r.n)), 1);

    await knex.migrate.rollback(undefined, true);
    const left = (await knex.raw('SHOW TABLES'))[0].map((r) => Object.values(r)[0]).sort();
    check('every migration rolled back', left, ['knex_migrations', 'knex_migrations_lock']);
  } finally {
    await knex.destroy();
  }
}

main().then(() => console.log('knex: all checks passed'), (e) => {
  console.error(e);
  console.error('last SQL:', JSON.stringify(lastSql));
  process.exit(1);
});
