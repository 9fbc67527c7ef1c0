import {
  ApartmentOutlined,
  DeleteOutlined,
  DragOutlined,
  EditOutlined,
  PlusOutlined,
} from '@ant-design/icons';
import {
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Flex,
  Input,
  Row,
  Skeleton,
  Space,
  Tree,
  Typography,
} from 'antd';
import { Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import type { DepartmentFormTarget } from './department-form.modal.tsx';
import { DepartmentMembersCard } from './department-members.card.tsx';
import { filterDepartments, findDepartment, flattenDepartments, pathTo } from './department-tree.ts';
import { DepartmentFormModal, MoveDepartmentModal } from './lazy-parts.ts';
import type { Department } from './org-types.ts';
import { useDepartmentTree } from './use-department-tree.ts';

/** A tree this small opens whole at first; a larger one shows the root's departments. */
const OPEN_ALL_UP_TO = 50;

interface TreeNode {
  key: string;
  title: string;
  department: Department;
  children?: TreeNode[];
}

const treeNodesOf = (node: Department): TreeNode => ({
  key: node.departmentId,
  title: node.name,
  department: node,
  ...(node.children.length ? { children: node.children.map(treeNodesOf) } : {}),
});

/** /org/department (full route set only): the department tree, a department's facts and its people. */
export function DepartmentPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const { tree, loading, reload } = useDepartmentTree();
  const [selectedId, setSelectedId] = useState<string>();
  const [keyword, setKeyword] = useState('');
  const [expanded, setExpanded] = useState<string[]>();
  const [formTarget, setFormTarget] = useState<DepartmentFormTarget>();
  const [moving, setMoving] = useState<Department>();

  // The root is selected until the person picks another; a department that went away falls back to it.
  const selected = tree ? (selectedId && findDepartment(tree, selectedId)) || tree : undefined;
  const shownTree = useMemo(() => (tree ? filterDepartments(tree, keyword) : undefined), [tree, keyword]);
  const treeData = useMemo(() => (shownTree ? [treeNodesOf(shownTree)] : []), [shownTree]);
  // While searching every match is open; otherwise what the person opened, first the top two levels.
  const allKeys = useMemo(
    () => (shownTree ? flattenDepartments(shownTree).map((d) => d.departmentId) : []),
    [shownTree],
  );
  useEffect(() => {
    if (!tree || expanded !== undefined) return;
    const all = flattenDepartments(tree);
    setExpanded(all.length <= OPEN_ALL_UP_TO ? all.map((d) => d.departmentId) : [tree.departmentId]);
  }, [tree, expanded]);

  const remove = (department: Department) =>
    // A refusal is shown by the HTTP client (spec §8: sub departments must be deleted first).
    void confirm({
      title: t('org.department.deleteTitle', { name: department.name }),
      content: t('org.department.deleteContent'),
      okText: t('org.department.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/department/del', { departmentId: department.departmentId });
        void message.success(t('org.department.deleted', { name: department.name }));
        setSelectedId(department.parentId ?? undefined);
        reload();
      },
    });

  const superior =
    selected && tree && selected.parentId ? findDepartment(tree, selected.parentId) : undefined;
  const trail = selected && tree ? pathTo(tree, selected.departmentId) : [];
  const isRoot = selected?.parentId === null;

  return (
    <Row gutter={[16, 16]} style={{ maxWidth: 1600 }}>
      <Col xs={24} lg={9} xxl={7}>
        <Card
          title={t('org.department.title')}
          extra={
            <Button
              type="primary"
              size="small"
              icon={<PlusOutlined />}
              // The top level: a department under the selected one is its own action (createSub).
              onClick={() => setFormTarget({ mode: 'create' })}
            >
              {t('org.department.create')}
            </Button>
          }
          styles={{ body: { paddingInline: 12 } }}
        >
          <Input.Search
            allowClear
            placeholder={t('org.department.searchPlaceholder')}
            aria-label={t('org.department.searchPlaceholder')}
            onChange={(event) => setKeyword(event.target.value)}
            style={{ marginBottom: 12 }}
          />
          {tree ? (
            treeData.length ? (
              <Tree<TreeNode>
                blockNode
                showLine
                treeData={treeData}
                selectedKeys={selected ? [selected.departmentId] : []}
                expandedKeys={keyword.trim() ? allKeys : expanded}
                onExpand={(keys) => setExpanded(keys.map(String))}
                onSelect={(keys) => {
                  if (keys.length) setSelectedId(String(keys[0]));
                }}
                titleRender={(node) => (
                  <Flex justify="space-between" gap={8}>
                    <span style={{ overflowWrap: 'anywhere' }}>{node.title}</span>
                    <Typography.Text
                      type="secondary"
                      style={{ flex: 'none' }}
                      title={t('org.department.countHint', {
                        total: node.department.totalMemberCount,
                        direct: node.department.memberCount,
                      })}
                      data-testid={`department-count-${node.department.departmentId}`}
                    >
                      {node.department.totalMemberCount}
                    </Typography.Text>
                  </Flex>
                )}
                style={{ maxHeight: 560, overflow: 'auto' }}
              />
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('common.noData')} />
            )
          ) : (
            <Skeleton active loading={loading} paragraph={{ rows: 6 }} />
          )}
        </Card>
      </Col>
      <Col xs={24} lg={15} xxl={17}>
        {selected ? (
          <Flex vertical gap={16}>
            <Card
              title={
                <Space size={8}>
                  <ApartmentOutlined />
                  <span>{selected.name}</span>
                </Space>
              }
              extra={
                <Space wrap size={4}>
                  <Button
                    size="small"
                    icon={<PlusOutlined />}
                    onClick={() => setFormTarget({ mode: 'create', parentId: selected.departmentId })}
                  >
                    {t('org.department.createSub')}
                  </Button>
                  <Button
                    size="small"
                    icon={<EditOutlined />}
                    onClick={() => setFormTarget({ mode: 'edit', department: selected })}
                  >
                    {t('org.department.edit')}
                  </Button>
                  {isRoot ? null : (
                    <>
                      <Button size="small" icon={<DragOutlined />} onClick={() => setMoving(selected)}>
                        {t('org.department.move')}
                      </Button>
                      <Button size="small" danger icon={<DeleteOutlined />} onClick={() => remove(selected)}>
                        {t('org.department.delete')}
                      </Button>
                    </>
                  )}
                </Space>
              }
              styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 8 } }}
            >
              <Descriptions
                column={{ xs: 1, sm: 1, md: 2 }}
                size="small"
                items={[
                  { key: 'name', label: t('org.department.name'), children: selected.name },
                  {
                    key: 'id',
                    label: t('org.department.id'),
                    children: (
                      <Typography.Text copyable code style={{ wordBreak: 'break-all' }}>
                        {selected.departmentId}
                      </Typography.Text>
                    ),
                  },
                  {
                    key: 'manager',
                    label: t('org.department.manager'),
                    children: selected.managerName ?? t('org.department.noManager'),
                  },
                  {
                    key: 'parent',
                    label: t('org.department.parent'),
                    children: superior
                      ? trail
                          .slice(0, -1)
                          .map((d) => d.name)
                          .join(' / ')
                      : '—',
                  },
                  {
                    key: 'total',
                    label: t('org.department.totalMemberCount'),
                    children: selected.totalMemberCount,
                  },
                  { key: 'members', label: t('org.department.memberCount'), children: selected.memberCount },
                ]}
              />
              {isRoot ? (
                <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
                  {t('org.department.root')}
                </Typography.Paragraph>
              ) : null}
            </Card>
            <DepartmentMembersCard key={selected.departmentId} department={selected} onChange={reload} />
          </Flex>
        ) : (
          <Card>
            <Empty description={t('org.department.selectHint')} />
          </Card>
        )}
      </Col>
      <Suspense fallback={null}>
        {formTarget ? (
          <DepartmentFormModal
            target={formTarget}
            tree={tree}
            onClose={() => setFormTarget(undefined)}
            onSaved={(departmentId) => {
              setFormTarget(undefined);
              setSelectedId(departmentId);
              if (selected && !expanded?.includes(selected.departmentId)) {
                setExpanded([...(expanded ?? []), selected.departmentId]);
              }
              reload();
            }}
          />
        ) : null}
        {moving ? (
          <MoveDepartmentModal
            department={moving}
            tree={tree}
            onClose={() => setMoving(undefined)}
            onMoved={() => {
              setMoving(undefined);
              reload();
            }}
          />
        ) : null}
      </Suspense>
    </Row>
  );
}
