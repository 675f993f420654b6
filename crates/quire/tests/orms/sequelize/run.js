// Sequelize against quire: sync() of models with associations,
// sync({ alter: true }) after the models change, the QueryInterface's
// migrations (add / rename / change / remove a column, add an index and
// a constraint) and their reverse, and CRUD through the models.
//
// Usage: NODE_PATH=<node_modules> node run.js PORT PASSWORD. Prints one
// line per check; on the first failure prints the SQL that failed (or
// the last SQL run) and exits 1.
'use strict';
const assert = require('assert');
const { Sequelize, DataTypes, Op } = require('sequelize');

const [port, password] = [Number(process.argv[2]), process.argv[3]];
let lastSql = null;

function check(name, got, want) {
  assert.deepStrictEqual(got, want, name);
  console.log(`ok ${name}`);
}

function define(sequelize, version) {
  const Team = sequelize.define('Team', {
    name: { type: DataTypes.STRING(50), allowNull: false, unique: true },
    budget: { type: DataTypes.DECIMAL(10, 2), defaultValue: 0 },
    ...(version >= 2 ? { motto: { type: DataTypes.STRING(80) } } : {}),
  });
  const Member = sequelize.define('Member', {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    email: { type: DataTypes.STRING(120), allowNull: false, validate: { isEmail: true } },
    age: DataTypes.INTEGER,
    active: { type: DataTypes.BOOLEAN, defaultValue: true },
    born: DataTypes.DATEONLY,
    prefs: DataTypes.JSON,
    role: { type: DataTypes.ENUM('dev', 'ops', 'lead'), defaultValue: 'dev' },
  }, { paranoid: true, indexes: [{ unique: true, fields: ['email'] }] });
  const Skill = sequelize.define('Skill', { name: { type: DataTypes.STRING(30), unique: true } }, { timestamps: false });
  Team.hasMany(Member, { onDelete: 'CASCADE', foreignKey: { allowNull: false } });
  Member.belongsTo(Team);
  Member.belongsToMany(Skill, { through: 'MemberSkills' });
  Skill.belongsToMany(Member, { through: 'MemberSkills' });
  return { Team, Member, Skill };
}

async function main() {
  const admin = new Sequelize('', 'root', password, { host: '127.0.0.1', port, dialect: 'mysql', logging: false });
  await admin.query('DROP DATABASE IF EXISTS seq_shop');
  await admin.query('CREATE DATABASE seq_shop');
  await admin.close();
  const sequelize = new Sequelize('seq_shop', 'root', password, {
    host: '127.0.0.1', port, dialect: 'mysql', logging: (sql) => { lastSql = sql; },
  });
  let altered = null;
  try {
    let { Team, Member, Skill } = define(sequelize, 1);
    await sequelize.sync({ force: true });
    const qi = sequelize.getQueryInterface();
    check('sync created the tables', (await qi.showAllTables()).sort(), ['MemberSkills', 'Members', 'Skills', 'Teams']);
    const cols = await qi.describeTable('Members');
    check('describeTable', [cols.id.type, cols.email.allowNull, cols.role.type, cols.TeamId.allowNull],
      ['CHAR(36)', false, "ENUM('dev','ops','lead')", false]);

    const core = await Team.create({ name: 'core', budget: '1000.50' });
    const infra = await Team.create({ name: 'infra' });
    const [js, sql] = await Skill.bulkCreate([{ name: 'js' }, { name: 'sql' }]);
    const ann = await Member.create({ email: 'ann@example.com', age: 40, TeamId: core.id, prefs: { theme: 'dark' }, role: 'lead' });
    const bob = await Member.create({ email: 'bob@example.com', age: 25, TeamId: core.id, born: '1999-02-03' });
    await Member.create({ email: 'cy@example.com', age: 33, TeamId: infra.id, active: false });
    await ann.addSkills([js, sql]);
    await bob.addSkill(sql);
    await assert.rejects(Member.create({ email: 'ann@example.com', TeamId: core.id }), (e) => e.name === 'SequelizeUniqueConstraintError');
    console.log('ok unique index refuses a duplicate');
    await assert.rejects(Member.create({ email: 'x@example.com', TeamId: 999 }), (e) => e.name === 'SequelizeForeignKeyConstraintError');
    console.log('ok foreign key refuses an orphan');

    check('where with operators', (await Member.findAll({ where: { age: { [Op.between]: [30, 45] }, email: { [Op.like]: '%@example.com' } }, order: [['age', 'ASC']] }))
      .map((m) => m.email), ['cy@example.com', 'ann@example.com']);
    check('Op.or / Op.in', await Member.count({ where: { [Op.or]: [{ role: 'lead' }, { email: { [Op.in]: ['cy@example.com'] } }] } }), 2);
    const teams = await Team.findAll({ include: [{ model: Member, include: [Skill] }], order: [['name', 'ASC'], [Member, 'email', 'ASC'], [Member, Skill, 'name', 'ASC']] });
    check('eager loading (nested include)', teams.map((t) => [t.name, t.Members.map((m) => [m.email, m.Skills.map((s) => s.name)])]),
      [['core', [['ann@example.com', ['js', 'sql']], ['bob@example.com', ['sql']]]], ['infra', [['cy@example.com', []]]]]);
    check('JSON', (await Member.findOne({ where: { email: 'ann@example.com' } })).prefs, { theme: 'dark' });
    check('DECIMAL and DATEONLY', [(await Team.findByPk(core.id)).budget, (await Member.findByPk(bob.id)).born], ['1000.50', '1999-02-03']);
    const perTeam = await Member.findAll({ attributes: ['TeamId', [sequelize.fn('COUNT', sequelize.col('id')), 'n'], [sequelize.fn('AVG', sequelize.col('age')), 'avg']],
      group: ['TeamId'], order: [['TeamId', 'ASC']], raw: true });
    check('group + aggregates', perTeam.map((r) => [r.TeamId, Number(r.n), Number(r.avg)]), [[core.id, 2, 32.5], [infra.id, 1, 33]]);
    check('limit/offset', (await Member.findAll({ order: [['email', 'DESC']], limit: 1, offset: 1 })).map((m) => m.email), ['bob@example.com']);
    const page = await Team.findAndCountAll({ include: [Member], distinct: true, limit: 1, order: [['name', 'ASC']] });
    check('findAndCountAll with include', [page.count, page.rows.length, page.rows[0].Members.length], [2, 1, 2]);
    await Member.increment({ age: 1 }, { where: { TeamId: core.id } });
    check('increment', (await Member.findAll({ where: { TeamId: core.id }, order: [['email', 'ASC']] })).map((m) => m.age), [41, 26]);
    const [, created] = await Skill.findOrCreate({ where: { name: 'go' } });
    check('findOrCreate', [created, (await Skill.findOrCreate({ where: { name: 'go' } }))[1]], [true, false]);
    await Skill.bulkCreate([{ id: js.id, name: 'javascript' }, { name: 'rust' }], { updateOnDuplicate: ['name'] });
    check('bulkCreate updateOnDuplicate', (await Skill.findAll({ order: [['name', 'ASC']] })).map((s) => s.name), ['go', 'javascript', 'rust', 'sql']);

    await assert.rejects(sequelize.transaction(async (t) => {
      await Team.create({ name: 'ghost' }, { transaction: t });
      throw new Error('roll back');
    }), /roll back/);
    check('transaction rollback', await Team.count({ where: { name: 'ghost' } }), 0);
    await sequelize.transaction(async (t) => {
      const m = await Member.findOne({ where: { email: 'bob@example.com' }, lock: t.LOCK.UPDATE, transaction: t });
      await m.update({ role: 'ops' }, { transaction: t });
    });
    check('lock FOR UPDATE', (await Member.findOne({ where: { email: 'bob@example.com' } })).role, 'ops');

    await bob.destroy();
    check('paranoid destroy', [await Member.count(), await Member.count({ paranoid: false })], [2, 3]);
    await bob.restore();
    check('restore', await Member.count(), 3);

    // The models change: sync({ alter: true }) brings the tables along.
    altered = new Sequelize('seq_shop', 'root', password, {
      host: '127.0.0.1', port, dialect: 'mysql', logging: (sql) => { lastSql = sql; },
    });
    ({ Team, Member, Skill } = define(altered, 2));
    await altered.sync({ alter: true });
    check('sync({ alter: true }) added the column', Object.keys(await qi.describeTable('Teams')).includes('motto'), true);
    check('the rows stayed', await qi.sequelize.query('SELECT COUNT(*) AS n FROM Members', { plain: true }).then((r) => Number(r.n)), 3);

    // Migrations through the QueryInterface, then their reverse.
    await qi.addColumn('Skills', 'level', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 });
    await qi.renameColumn('Skills', 'level', 'rank');
    await qi.changeColumn('Skills', 'rank', { type: DataTypes.BIGINT, allowNull: true });
    await qi.addIndex('Skills', ['rank'], { name: 'skills_rank_idx' });
    await qi.addConstraint('Skills', { fields: ['rank'], type: 'check', where: { rank: { [Op.gt]: 0 } }, name: 'skills_rank_positive' });
    const skills = await qi.describeTable('Skills');
    check('migrations applied', [skills.rank.type, skills.rank.allowNull, Boolean(skills.level)], ['BIGINT', true, false]);
    check('addIndex', (await qi.showIndex('Skills')).some((i) => i.name === 'skills_rank_idx'), true);
    await assert.rejects(qi.sequelize.query('UPDATE Skills SET `rank` = 0'), (e) => /skills_rank_positive/.test(e.message));
    console.log('ok addConstraint check refuses');
    // Sequelize 6 removes any constraint but a foreign key with DROP INDEX,
    // which MySQL 8.0 refuses for a CHECK too (1091): MySQL's own statement.
    await qi.sequelize.query('ALTER TABLE Skills DROP CHECK skills_rank_positive');
    await qi.removeIndex('Skills', 'skills_rank_idx');
    await qi.removeColumn('Skills', 'rank');
    check('migrations reversed', Object.keys(await qi.describeTable('Skills')).sort(), ['id', 'name']);

    await core.destroy({ force: true });
    check('ON DELETE CASCADE', await Member.count({ paranoid: false }), 1);
    await sequelize.drop();
    check('drop', await qi.showAllTables(), []);
  } finally {
    await sequelize.close();
    if (altered) await altered.close();
  }
}

main().then(() => console.log('sequelize: all checks passed'), (e) => {
  console.error(e);
  console.error('last SQL:', lastSql);
  process.exit(1);
});
